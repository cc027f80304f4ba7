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
