"""An exception escaping a command is an internal error: one line, exit 2, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from initlint import cli


def _boom(*args: object, **kwargs: object) -> object:
    raise KeyError("no such thing")


def test_uncaught_exception_exits_2_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "m.py").write_text("class A:\n    pass\n")
    monkeypatch.setattr(cli, "analyze", _boom)
    monkeypatch.delenv("INITLINT_DEBUG", raising=False)
    result = CliRunner().invoke(cli.main, ["check", str(tmp_path / "m.py")])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "error: internal error: KeyError: 'no such thing'" in result.output
    assert "INITLINT_DEBUG=1" in result.output


def test_debug_variable_lets_the_traceback_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "m.py").write_text("class A:\n    pass\n")
    monkeypatch.setattr(cli, "analyze", _boom)
    monkeypatch.setenv("INITLINT_DEBUG", "1")
    result = CliRunner().invoke(cli.main, ["check", str(tmp_path / "m.py")])
    assert isinstance(result.exception, KeyError)


def test_check_does_not_import_libcst_or_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom initlint.cli import main\n"
        "CliRunner().invoke(main, ['check', '--help'])\n"
        "print(sorted(m for m in ('libcst', 'torch') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
