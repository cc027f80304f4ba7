#!/usr/bin/env bash
# Install everything the tests need into .venv, then run every check CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# Pin the CPU torch build first: a bare `torch` requirement could pull a multi-GB CUDA build.
.venv/bin/python -m pip install -q --disable-pip-version-check torch==2.13.0
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[rope,lsp,test]'
echo "== ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "== mypy --strict"
.venv/bin/mypy initlint fixed_rope
echo "== initlint lints itself"
.venv/bin/initlint check --no-cache .
echo "== pytest"
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"

# The other supported Pythons (3.12, 3.13): the fixture tests and the API, without torch (the
# checker never needs it), each in its own venv from pyenv. Only for a whole-suite run.
if [ "$#" -eq 0 ]; then
  for minor in 3.12 3.13; do
    version=""
    if command -v pyenv >/dev/null 2>&1; then
      version=$(pyenv versions --bare 2>/dev/null | grep -E "^${minor//./\\.}\.[0-9]+$" | sort -V | tail -n 1 || true)
    fi
    if [ -z "$version" ]; then
      if [ -n "${INITLINT_REQUIRE_PYTHONS:-}" ]; then
        echo "error: Python $minor is not installed under pyenv" >&2
        exit 1
      fi
      echo "== Python $minor: skipped (no pyenv $minor.x; CI runs it)"
      continue
    fi
    venv=".venv${minor//./}"
    echo "== Python $version: fixture tests ($venv)"
    if [ ! -x "$venv/bin/python" ]; then
      PYENV_VERSION="$version" pyenv exec python -m venv "$venv"
    fi
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -e '.[test]'
    "$venv/bin/python" -m pytest -q -p no:cacheprovider \
      tests/test_check_fixtures.py tests/test_fix_fixtures.py tests/test_api.py
  done
fi
