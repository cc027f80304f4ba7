"""What a value cost to build goes with it into a method of the object it is handed to
(``self.set_encoder(encoder)``): a store there is that build, so an ancestor's default
built and stored through the same setter, then replaced, is a rebuild (IL003).

A plain object built into a local (a settings object read field by field) holds values,
not parts of a module: only a known heavy build left in it is thrown away with it, and an
object whose class answers every attribute read through its own ``__getattr__`` is read
whole by any read. A module's part of a cost not known here is still claimed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from initlint.api import check

SOURCE = """
import torch.nn as nn
from missing_settings import UnreadModule, lookup, make_head


class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(1024, 1024)


class Base(nn.Module):
    def __init__(self, encoder=None):
        super().__init__()
        if encoder is None:
            encoder = Enc()
        self.set_encoder(encoder)

    def set_encoder(self, encoder):
        self.encoder = encoder


class Sub(Base):
    def __init__(self):
        super().__init__()
        self.set_encoder(Enc())


class Params:
    def __init__(self):
        self.width = lookup("WIDTH")
        self.depth = lookup("DEPTH")


class Forwarding:
    def __init__(self):
        self._table = {"width": 64}
        self.cache = nn.Linear(1024, 1024)

    def __getattr__(self, name):
        return self._table[name]


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(64, 64)
        self.head = make_head()


class UsesSettings(nn.Module):
    def __init__(self):
        super().__init__()
        p = Params()
        self.fc = nn.Linear(p.width, p.width)


class UsesForwarding(nn.Module):
    def __init__(self):
        super().__init__()
        p = Forwarding()
        self.fc = nn.Linear(p.width, p.width)


class TakesBody(nn.Module):
    def __init__(self):
        super().__init__()
        net = Backbone()
        self.body = net.body


class KeptTwice(nn.Module):
    def __init__(self):
        super().__init__()
        enc = Enc()
        self.keep(enc)
        self.keep(enc)

    def keep(self, m):
        self.slot = m


class Passthrough(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(64, 64)
        self.head = make_head()

    def __getattr__(self, name):
        return super().__getattr__(name)


class TakesPassthroughBody(nn.Module):
    def __init__(self):
        super().__init__()
        net = Passthrough()
        self.body = net.body


class OnUnreadBase(UnreadModule):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(64, 64)
        self.head = make_head()


class TakesUnreadBody(nn.Module):
    def __init__(self):
        super().__init__()
        net = OnUnreadBase()
        self.body = net.body
"""


def _report(tmp_path: Path) -> tuple[Any, ...]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "handed"\n')
    (tmp_path / "handed.py").write_text(SOURCE)
    return check([tmp_path], cwd=tmp_path, use_cache=False).diagnostics


def _found(tmp_path: Path) -> dict[tuple[str, str], str]:
    return {(d.class_name.rsplit(".", 1)[-1], d.code): d.severity for d in _report(tmp_path)}


def test_a_build_handed_to_a_setter_is_stored_there(tmp_path: Path) -> None:
    # (reported at the setter's store, which both constructions run: for Sub)
    rebuilt = [d for d in _report(tmp_path) if d.code == "IL003"]
    assert [(d.severity, "(in Sub)" in d.message) for d in rebuilt] == [("error", True)]


def test_a_settings_object_read_field_by_field_throws_nothing_away(tmp_path: Path) -> None:
    found = _found(tmp_path)
    assert ("UsesSettings", "IL005") not in found
    assert ("UsesForwarding", "IL005") not in found  # (``__getattr__``: read whole)
    assert found.get(("TakesBody", "IL005")) == "warning"  # (a module's unknown part)
    # (a module's own ``__getattr__``, or a base not read here: not known to be plain)
    assert found.get(("TakesPassthroughBody", "IL005")) == "warning"
    assert found.get(("TakesUnreadBody", "IL005")) == "warning"


def test_a_build_the_caller_hands_on_twice_is_not_carried(tmp_path: Path) -> None:
    assert ("KeptTwice", "IL005") not in _found(tmp_path)
