"""An exception escaping a command is an internal error: one line, exit 2, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from initlint import cli, reporting


def _boom(*args: object, **kwargs: object) -> object:
    raise KeyError("no such thing")


def test_uncaught_exception_exits_2_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "m.py").write_text("class A:\n    pass\n")
    monkeypatch.setattr(reporting, "check", _boom)
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
    monkeypatch.setattr(reporting, "check", _boom)
    monkeypatch.setenv("INITLINT_DEBUG", "1")
    result = CliRunner().invoke(cli.main, ["check", str(tmp_path / "m.py")])
    assert isinstance(result.exception, KeyError)


def test_check_does_not_import_libcst_or_torch(tmp_path: Path) -> None:
    """Text output needs neither: libcst only renders fixes (json/sarif, fix), torch only
    runs `trace`. A run with a finding and its fix plan, in a fresh interpreter."""
    import subprocess
    import sys

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "m.py").write_text(
        "import torch\nfrom torch import nn\n\n\nclass Base(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.register_buffer('c', torch.zeros(3))\n\n\n"
        "class Child(Base):\n    def __init__(self):\n        super().__init__()\n"
        "        self.register_buffer('c', torch.zeros(3))\n"
    )
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom initlint.cli import main\n"
        f"r = CliRunner().invoke(main, ['check', '--no-cache', {str(tmp_path)!r}])\n"
        "print(r.exit_code, 'IL001' in r.output, '[fix: ' in r.output)\n"
        "print(sorted(m for m in ('libcst', 'torch') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["1 True True", "[]"], out.stdout + out.stderr


def test_a_closed_pipe_is_not_an_internal_error(tmp_path: Path) -> None:
    """`initlint demo | head -3`: the reader goes away; no "internal error", no traceback."""
    import subprocess
    import sys

    code = "from initlint.cli import main\nmain(['demo'])\n"
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # like `head` exiting after its first lines
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "internal error" not in err
    assert "Traceback" not in err
