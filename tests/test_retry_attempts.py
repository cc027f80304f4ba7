"""A loader that calls ``ok = self._load()`` and retries only ``if not ok`` (after a
download): where every ``return`` of ``_load`` gives a true constant, the retry never
follows a first call whose work completed, so that work is not thrown away by it; what a
retry redoes after the first attempt raised is a failed attempt's fallback. A ``_load``
whose result depends on what it loaded may be retried after completing: still reported."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch


class Loader:
    def __init__(self, root, download=False):
        self.root = root
        self.download = download

    def _load_dataset(self):
        loaded = False
        try:
            loaded = self._load_metadata()
        except Exception:
            pass
        if loaded:
            return
        if not self.download:
            raise RuntimeError("missing")
        self._fetch()
        if not self._load_metadata():
            raise RuntimeError("still missing")

    def _fetch(self):
        pass

    def _load_metadata(self):
        return True


class Table(Loader):
    def __init__(self, root, download=False):
        super().__init__(root, download)
        self._load_dataset()

    def _load_metadata(self):
        self.table = torch.load(self.root)
        return True


class Checked(Loader):
    def __init__(self, root, download=False):
        super().__init__(root, download)
        self._load_dataset()

    def _load_metadata(self):
        self.table = torch.load(self.root)
        return bool(self.root)
"""


def _found(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "loaders"\n')
    (tmp_path / "loaders.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return {d.class_name.rpartition(".")[2]: d.code for d in report.diagnostics}


def test_a_retry_after_a_load_that_always_succeeds_is_no_repeat(tmp_path: Path) -> None:
    assert "Table" not in _found(tmp_path)


def test_a_retry_after_a_load_that_may_report_failure_is_reported(tmp_path: Path) -> None:
    assert _found(tmp_path).get("Checked") == "IL005"
