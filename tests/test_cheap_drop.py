"""An ancestor's costly build that the subclass drops for a value that builds nothing (an
empty container, an object it already holds) is thrown away as surely as one dropped for
``None`` (IL005). Storing again the argument the ancestor stored (``self.config = config``)
changes nothing, so an ancestor's ``if`` on it pairs with the subclass's ``if`` of the same
text: the alias stored on one arm does not throw away what the other arm built."""

from __future__ import annotations

from pathlib import Path

from initlint.api import check

SOURCE = """
import torch
import torch.nn as nn

GROUP = None


class Tower(nn.Module):
    def __init__(self, d, n, path="index.pt"):
        super().__init__()
        self.embed = nn.Embedding(1000, d)
        self.mergers = nn.ModuleList([nn.Linear(d, d) for _ in range(n)])
        self.index = torch.load(path)


class Flat(Tower):
    \"\"\"Drops the ancestor's mergers for an empty list, its index for another object's.\"\"\"

    def __init__(self, d, n, path="index.pt"):
        super().__init__(d, n, path)
        self.mergers = nn.ModuleList()
        self.index = self.embed.weight


class Given(nn.Module):
    def __init__(self, d=4096, encoder=None):
        super().__init__()
        self.encoder = encoder if encoder is not None else nn.Linear(d, d)


class Passed(Given):
    \"\"\"Stores again the encoder it was given: maybe the very object, nothing built.\"\"\"

    def __init__(self, encoder, d=4096):
        super().__init__(d, encoder=encoder)
        self.encoder = encoder


def get_group():
    return GROUP


class Head(nn.Module):
    def __init__(self, config, d=4096):
        super().__init__()
        self.group = get_group()
        self.config = config
        self.embed = nn.Embedding(1000, d)
        if self.group.size == 1 and self.config.tie:
            self.head = self.embed
        else:
            self.head = nn.Linear(d, 1000)


class Again(Head):
    \"\"\"Stores the same config, then the same if/else: the alias arm drops only an alias.\"\"\"

    def __init__(self, config, d=4096):
        super().__init__(config, d)
        self.group = get_group()
        self.config = config
        if self.group.size == 1 and self.config.tie:
            self.head = self.embed
        else:
            self.head = nn.Linear(d, 1000)
"""


def _line(text: str, nth: int = 0) -> int:
    """The line of the ``nth`` occurrence of ``text`` in ``SOURCE``."""
    lines = [i for i, line in enumerate(SOURCE.splitlines(), 1) if text in line]
    return lines[nth]


def _found(tmp_path: Path) -> list[tuple[str, str, str, int]]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "towers"\n')
    (tmp_path / "towers.py").write_text(SOURCE)
    report = check([tmp_path], cwd=tmp_path, use_cache=False)
    return sorted(
        (d.class_name.rsplit(".", 1)[-1], d.code, d.severity, d.line) for d in report.diagnostics
    )


def test_a_value_that_builds_nothing_drops_the_ancestors_build(tmp_path: Path) -> None:
    found = _found(tmp_path)
    flat = [f for f in found if f[0] == "Flat"]
    # the empty list and the alias each throw a heavy build away
    assert flat == [
        ("Flat", "IL005", "error", _line("self.mergers = nn.ModuleList()")),
        ("Flat", "IL005", "error", _line("self.index = self.embed.weight")),
    ]


def test_an_argument_the_ancestor_may_have_kept_is_no_drop(tmp_path: Path) -> None:
    assert [f for f in _found(tmp_path) if f[0] == "Passed"] == []


def test_restoring_the_same_argument_keeps_the_arms_paired(tmp_path: Path) -> None:
    found = _found(tmp_path)
    again = [f for f in found if f[0] == "Again"]
    # only the Linear rebuilt on the untied arm; the alias arm throws nothing heavy away
    assert again == [("Again", "IL003", "error", _line("nn.Linear(d, 1000)", 1))]
