from __future__ import annotations

import inspect
import json
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

torch = pytest.importorskip("torch")

from initlint.runtime.command import trace  # noqa: E402

BUGGY = "rt_samples.models:BuggyChild(size=128, dim=16)"  # cache: 128 * 16 * 4 = 8 KiB


def invoke(*args: str) -> Result:
    # click < 8.2 mixes stderr into stdout unless told otherwise.
    if "mix_stderr" in inspect.signature(CliRunner.__init__).parameters:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    else:
        runner = CliRunner()
    return runner.invoke(trace, list(args), prog_name="initlint trace")


def test_text_reports_repeats_and_exits_1(samples: Path) -> None:
    result = invoke(BUGGY, "--path", str(samples))
    assert result.exit_code == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("traced rt_samples.models.BuggyChild on cpu: ")
    rows = {line.split()[1]: line.split() for line in lines[1:-1]}
    assert rows["cache"][:5] == ["buffer", "cache", "2", "8.0", "KiB"]
    assert rows["CachedBase._build"][:5] == ["call", "CachedBase._build", "2", "8.0", "KiB"]
    assert "base.py:" in rows["cache"][5] and "models.py:" in rows["cache"][6]
    assert lines[-1] == "verdict: 2 repeated items, 8.0 KiB wasted"
    assert result.stderr == ""


def test_text_without_repeats_exits_0(samples: Path) -> None:
    result = invoke("rt_samples.models:FixedChild(size=128, dim=16)", "--path", str(samples))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "verdict: no repeated work"


def test_single_repeat_verdict(samples: Path) -> None:
    result = invoke("rt_samples.models:TableChild(256)", "--path", str(samples))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "verdict: 1 repeated item, 2.0 KiB wasted"


def test_bare_class_is_called_without_arguments(samples: Path) -> None:
    result = invoke("rt_samples.models:FixedChild", "--path", str(samples), "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["class"] == "rt_samples.models.FixedChild"


def test_json_output(samples: Path) -> None:
    result = invoke(BUGGY, "--path", str(samples), "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert list(data) == ["class", "seconds", "peak_bytes", "device", "repeated", "events"]
    assert [(r["kind"], r["name"], r["count"], r["bytes"]) for r in data["repeated"]] == [
        ("call", "CachedBase._build", 2, 8192),
        ("buffer", "cache", 2, 8192),
    ]
    assert data["device"] == "cpu"


def test_torch_is_in_scope_of_the_expression(samples: Path) -> None:
    target = "rt_samples.models:TableChild(int(torch.tensor(8)))"
    result = invoke(target, "--path", str(samples), "--format", "json")
    assert result.exit_code == 1, result.stderr
    assert json.loads(result.stdout)["repeated"][0]["bytes"] == 8 * 8


def _error(result: Result) -> str:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_missing_module() -> None:
    assert _error(invoke("no_such_mod_xyz:Thing()")) == (
        "error: cannot import module 'no_such_mod_xyz': No module named 'no_such_mod_xyz'"
    )


def test_module_that_fails_to_import(forget_modules: Path) -> None:
    (forget_modules / "rt_broken_mod.py").write_text("raise RuntimeError('broken\\nmodule')\n")
    assert _error(invoke("rt_broken_mod:X()", "--path", str(forget_modules))) == (
        "error: cannot import module 'rt_broken_mod': RuntimeError: broken module"
    )


def test_missing_attribute(samples: Path) -> None:
    assert _error(invoke("rt_samples.models:Nope(1)", "--path", str(samples))) == (
        "error: module 'rt_samples.models' has no attribute 'Nope'"
    )


def test_syntax_error(samples: Path) -> None:
    message = _error(invoke("rt_samples.models:FixedChild(", "--path", str(samples)))
    assert message.startswith("error: invalid target expression 'FixedChild(': ")


@pytest.mark.parametrize("target", ["rt_samples.models", "rt_samples.models:", "bad name:X()"])
def test_malformed_target(samples: Path, target: str) -> None:
    message = _error(invoke(target, "--path", str(samples)))
    assert message.startswith("error: target must look like 'module:Class(args...)'")


def test_call_that_raises(samples: Path) -> None:
    assert _error(invoke("rt_samples.models:Failing()", "--path", str(samples))) == (
        "error: Failing() raised ValueError: boom: bad config"
    )


def test_cuda_without_cuda(samples: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    message = _error(invoke(BUGGY, "--path", str(samples), "--device", "cuda"))
    assert message.startswith("error: device 'cuda' requested but CUDA is not available")


def test_path_and_cwd_are_searched(forget_modules: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = forget_modules / "src"
    src.mkdir()
    (src / "rt_pathmod.py").write_text(
        textwrap.dedent(
            """
            import torch
            from torch import nn

            class Twice(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("x", torch.ones(2))
                    self.register_buffer("x", torch.ones(2))
            """
        )
    )
    before = list(sys.path)
    message = _error(invoke("rt_pathmod:Twice()"))
    assert message.startswith("error: cannot import module 'rt_pathmod': No module named")
    assert invoke("rt_pathmod:Twice()", "--path", str(src)).exit_code == 1
    del sys.modules["rt_pathmod"]
    monkeypatch.chdir(src)
    assert invoke("rt_pathmod:Twice()").exit_code == 1
    assert sys.path == before


def test_nonexistent_path_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke("m:X()", "--path", str(tmp_path / "missing"))
    assert result.exit_code == 2


def test_help_explains_that_trace_executes_code() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "trace EXECUTES the call you give it" in text
    assert "check, fix and server never execute repository code" in text
    assert "initlint trace 'mypkg.rope:Rope(64, max_positions=4096)'" in result.stdout
    assert "--device [cpu|cuda|meta]" in result.stdout
