"""Shares of one statement from several classes (a mixin's, or a base's statement reported for
each concrete subclass) merge into one diagnostic whose wording does not depend on the order
the report files were checked in."""

from __future__ import annotations

from itertools import permutations
from types import SimpleNamespace
from typing import Any

from initlint.diagnostics import Diagnostic
from initlint.pipeline.report import Share, merge_shares

SITE = ("IL003", "pkg/mixin.py", 7, 9)


def _share(cls: str, owner: str, why: str) -> Share:
    diag = Diagnostic(
        path="pkg/mixin.py",
        line=7,
        column=9,
        end_line=7,
        end_column=30,
        code="IL003",
        rule="overwritten-init-attribute",
        message="`self.table` is rebuilt",
        severity="error",
        class_name=cls,
        classes=(cls,),
        no_fix=f"it also drops `self.n`, which {cls.rsplit('.', 1)[-1]} does not redo",
    )
    return Share(diag, site=SITE, owner=owner, message_tail=f" [no fix: {why}]")


def _merged(shares: list[Share]) -> list[Diagnostic]:
    analysis: Any = SimpleNamespace(plans={})
    return merge_shares(analysis, shares)


def test_the_merged_wording_does_not_depend_on_the_order() -> None:
    shares = [
        _share("pkg.b.RunnerB", "pkg.mixin.TableMixin", "b"),
        _share("pkg.a.RunnerA", "pkg.mixin.TableMixin", "a"),
        _share("pkg.c.RunnerC", "pkg.mixin.TableMixin", "c"),
    ]
    results = {tuple(_merged(list(order))) for order in permutations(shares)}
    assert len(results) == 1
    (merged,) = results.pop()
    assert merged.classes == ("pkg.a.RunnerA", "pkg.b.RunnerB", "pkg.c.RunnerC")
    assert merged.message == "`self.table` is rebuilt (in RunnerA, RunnerB, RunnerC) [no fix: a]"
    assert "RunnerA does not redo" in merged.no_fix


def test_the_class_that_holds_the_statement_speaks_for_the_site() -> None:
    own = _share("pkg.mixin.Zed", "pkg.mixin.Zed", "own")
    other = _share("pkg.a.Alpha", "pkg.mixin.Zed", "other")
    for order in ([own, other], [other, own]):
        (merged,) = _merged(order)
        assert merged.class_name == "pkg.mixin.Zed"
        assert merged.message.endswith("(in Alpha, Zed) [no fix: own]")
