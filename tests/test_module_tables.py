"""A class looked up in a table written out at module level and called at once
(``self.enc = MODELS[arch](d)``) builds one of the table's classes: its cost is what they
cost where they agree, so a rebuild of it is rated as they are; a table its module changes
(an item stored, ``update``, a second binding) is a registry whose contents are not known
here, and the rebuild stays of a cost not known."""

from __future__ import annotations

import ast
from collections.abc import Callable

import pytest

from initlint.api import Report
from initlint.facts.model import SourceText
from initlint.facts.module_reader import ModuleReader

CASE = """
import torch.nn as nn


class Big(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w = nn.Linear(d, d)


class Other(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w = nn.Linear(d, 2 * d)


class Plain(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.act = nn.ReLU()


MODELS = {table}
{after}

class Base(nn.Module):
    def __init__(self, arch, d=1024):
        super().__init__()
        self.enc = MODELS[arch](d)


class Child(Base):
    def __init__(self, arch, d=1024):
        super().__init__(arch, d)
        self.enc = MODELS[arch](d)
"""


@pytest.mark.parametrize(
    ("table", "after", "severity", "unknown"),
    [
        ('{"big": Big, "other": Other}', "", "error", False),
        ("(Big, Other)", "", "error", False),
        ('{"plain": Plain, "relu": nn.ReLU}', "", "warning", False),
        # heavy and light by turns: which one is built is not known
        ('{"big": Big, "plain": Plain}', "", "warning", True),
        # a table its module changes, or binds again: what it holds is not known here
        ('{"big": Big}', 'MODELS["plain"] = Plain', "warning", True),
        ('{"big": Big}', "def add(k, v):\n    MODELS.update({k: v})", "warning", True),
        ('{"big": Big}', "MODELS = dict(MODELS)", "warning", True),
        # keys computed at run time: not a table written out
        ("{make(): Big}", "", "warning", True),
    ],
)
def test_a_rebuild_through_a_table_is_rated_by_what_the_table_holds(
    check_source: Callable[..., Report], table: str, after: str, severity: str, unknown: bool
) -> None:
    found = check_source(CASE.format(table=table, after=after)).diagnostics
    assert [(d.code, d.severity) for d in found] == [("IL003", severity)]
    assert ("costs is not known" in found[0].message) == unknown


def test_a_comparison_with_an_item_does_not_change_the_table(
    check_source: Callable[..., Report],
) -> None:
    after = 'CHECK = MODELS["big"] == Big'
    found = check_source(CASE.format(table='{"big": Big, "other": Other}', after=after))
    assert [d.severity for d in found.diagnostics] == ["error"]


REGISTRY = """
import torch.nn as nn


class Big(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w = nn.Linear(d, d)


MODELS = {"big": Big}
"""

USER = """
import torch.nn as nn
{imp}


class Base(nn.Module):
    def __init__(self, arch, d=1024):
        super().__init__()
        self.enc = {table}[arch](d)


class Child(Base):
    def __init__(self, arch, d=1024):
        super().__init__(arch, d)
        self.enc = {table}[arch](d)
"""


@pytest.mark.parametrize(
    ("imp", "table"),
    [
        ("from pkg.registry import MODELS", "MODELS"),
        ("from pkg import registry", "registry.MODELS"),
    ],
)
def test_a_table_imported_from_another_module(
    check_source: Callable[..., Report], imp: str, table: str
) -> None:
    check_source(REGISTRY, "pkg/registry.py")
    found = check_source(USER.format(imp=imp, table=table), "pkg/use.py").diagnostics
    assert [(d.code, d.severity) for d in found] == [("IL003", "error")]


PART = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.features = nn.Linear(d, d)
        self.classifier = nn.Linear(d, 4 * d)


ARCHS = {{"a": Net}}


class Encoder(nn.Module):
    def __init__(self, arch):
        super().__init__()
        {body}
"""


@pytest.mark.parametrize(
    ("body", "wording"),
    [
        ("model = ARCHS[arch]()\n        self.body = model.features", "built into the local"),
        ("self.body = ARCHS[arch]().features", "whose `features` alone is taken"),
    ],
)
def test_an_object_built_through_a_table_kept_in_part(
    check_source: Callable[..., Report], body: str, wording: str
) -> None:
    found = check_source(PART.format(body=body)).diagnostics
    assert [(d.code, d.severity) for d in found] == [("IL005", "error")]
    assert found[0].message.startswith("`classifier` of the object `ARCHS[...](...)`")
    assert wording in found[0].message


@pytest.mark.parametrize(
    ("text", "tables"),
    [
        ('T = {"a": A, "b": m.B}', {"T": ("A", "m.B")}),
        ("from functools import partial\nT = [A, partial(B, x=1)]", {"T": ("A", "B")}),
        ("T = (A, make())", {}),
        ('T = {"a": A}\ndef f():\n    global T\n    T = {}', {}),
        ('T = {"a": A}\ndel T["a"]', {}),
        ('T = {"a": A}\n@T.register\nclass C: ...', {}),
        ('T = {"a": A}\nT |= {"b": B}', {}),
        ('T = {"a": A}\nx = T["a"] != A', {"T": ("A",)}),
    ],
)
def test_which_module_level_values_are_tables_written_out(
    text: str, tables: dict[str, tuple[str, ...]]
) -> None:
    facts = ModuleReader(SourceText(text)).read(ast.parse(text))
    assert {t.name: t.values for t in facts.tables} == tables
