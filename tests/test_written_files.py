"""A file the construction writes at a path of the object: whether it exists, asked after
the work that wrote it, is decided by that work. A repeat under the file's absence never
follows the work; one under its presence is on the path every construction that did the
work takes, so it keeps its severity. A file the construction did not surely write there
stays a state outside the construction."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from initlint.api import Report

CASE = """
import os.path as osp

import torch


class Base:
    def __init__(self, root):
        self.root = root
        self.path = root + "/data.pt"
        self.other = root + "/other.pt"
        self.process()

    def process(self):
        self.table = torch.randn(4096, 4096)
        {save}


class Child(Base):
    def __init__(self, root):
        super().__init__(root)
        if osp.exists(self.path):
            self.table = torch.load(self.path)
        else:
            self.process()
"""

WORLD = [("IL003", "warning"), ("IL002", "warning")]


@pytest.mark.parametrize(
    ("save", "expected"),
    [
        ("torch.save(self.table, self.path)", [("IL003", "error")]),
        ("torch.save(self.table, f=self.path)", [("IL003", "error")]),
        # another file, no file, or a file written on some paths only
        ("torch.save(self.table, self.other)", WORLD),
        ("pass", WORLD),
        ("if self.root:\n            torch.save(self.table, self.path)", WORLD),
        # a function of the project named like a writer writes nothing known
        ("save(self.table, self.path)", WORLD),
    ],
)
def test_a_file_the_construction_wrote_decides_a_later_test_of_it(
    check_source: Callable[..., Report], save: str, expected: list[tuple[str, str]]
) -> None:
    source = CASE.format(save=save) + "\n\ndef save(obj, path):\n    pass\n"
    found = check_source(source).diagnostics
    assert [(d.code, d.severity) for d in found] == expected


def test_a_test_of_the_file_before_the_work_wrote_it_is_not_decided(
    check_source: Callable[..., Report],
) -> None:
    source = CASE.format(save="torch.save(self.table, self.path)").replace(
        "        self.process()\n\n    def process",
        "        if not osp.exists(self.path):\n            self.process()\n\n    def process",
    )
    # the ancestor's work happens only where the file was missing: a first run
    found = check_source(source).diagnostics
    assert [(d.code, d.severity) for d in found] == [("IL003", "warning")]


def test_every_writer_the_simulation_knows_is_one_the_facts_record() -> None:
    from initlint.facts.function_reader import WRITING_NAMES
    from initlint.simulation.torch_knowledge import FILE_WRITERS

    assert {name.rpartition(".")[2] for name in FILE_WRITERS} <= WRITING_NAMES
