"""A rebuild read from storage (``self.data = torch.load(self.path)`` after the ancestor's
``process()`` built and saved it) may read what the ancestor's work wrote there: a fix
that skipped that work could leave nothing to read on a first run, so none is offered
where the ancestors' work writes a file; a rebuild computed anew is judged as any other
(an ancestor that only reads the file keeps its fix: the ``io_dataset_reload`` fixture)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

SOURCE = """
import os

import torch


class Dataset:
    def __init__(self, root):
        self.root = root
        self.path = os.path.join(root, "data.pt")
        if not os.path.exists(self.path):
            self.process()

    def process(self):
        self.data = self.read()
        torch.save(self.data, self.path)

    def read(self):
        return torch.randn(1000, 64)


class Child(Dataset):
    def __init__(self, root):
        super().__init__(root)
        self.data = {rebuild}
"""


@pytest.mark.parametrize(
    ("rebuild", "stored"),
    [("torch.load(self.path)", True), ("self.read()", False)],
)
def test_a_rebuild_read_from_storage_gets_no_fix(
    check_source: Callable[..., Report], rebuild: str, stored: bool
) -> None:
    found = check_source(SOURCE.format(rebuild=rebuild)).diagnostics
    assert [(d.code, d.line) for d in found] == [("IL003", 25)]
    why = "`self.data` is read from storage, which the ancestor's work may have written"
    assert found[0].no_fix.startswith(why) == stored
    assert found[0].fix is None or not stored
