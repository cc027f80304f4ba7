"""torch stays optional: importing the command is free, running it without torch is exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from initlint.runtime.command import NO_TORCH

BLOCK_TORCH = textwrap.dedent(
    """
    import sys

    class BlockTorch:
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ImportError(f"No module named {name!r} (blocked by the test)")
            return None

    sys.meta_path.insert(0, BlockTorch())
    """
)


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(cwd), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_importing_the_command_does_not_import_torch(repo_root: Path) -> None:
    code = (
        "import sys, initlint.runtime, initlint.runtime.command\n"
        "from initlint.runtime.command import trace\n"
        "assert 'torch' not in sys.modules, 'imported torch'\n"
        "trace.main(['--help'], prog_name='initlint trace', standalone_mode=False)\n"
        "assert 'torch' not in sys.modules, '--help imported torch'\n"
        "print('clean')\n"
    )
    proc = run_python(code, repo_root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith("clean")


def test_trace_without_torch_exits_2_with_install_hint(repo_root: Path) -> None:
    code = BLOCK_TORCH + (
        "from initlint.runtime.command import trace\n"
        "trace.main(['rt_samples.models:BuggyChild()'], prog_name='initlint trace')\n"
    )
    proc = run_python(code, repo_root)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr == NO_TORCH + "\n"
    assert NO_TORCH == "initlint trace needs torch: pip install 'initlint[rope]'"


def test_the_blocker_really_blocks_torch(repo_root: Path) -> None:
    proc = run_python(BLOCK_TORCH + "import torch\n", repo_root)
    assert proc.returncode == 1
    assert "blocked by the test" in proc.stderr
