"""Builds whose every size is written out are priced by what they hold, light under a
mebibyte each; several of them in one value add up (a transformer MLP of two such
``nn.Linear`` layers holds more than one alone), the items of a comprehension as often as
its ``range`` written out runs. A comprehension over a count not written out makes a total
not known: unknown, never light."""

from __future__ import annotations

import pytest

from initlint.api import check

SOURCE = """
import somelib
import torch
import torch.nn as nn


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(192, 768), nn.GELU(), nn.Linear(768, 192))
        self.mlp = nn.Identity()


class One(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(192, 768)
        self.fc = nn.Identity()


class Stacked(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(64, 64) for _ in range(128)])
        self.layers = nn.Identity()


class FewStacked(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(64, 64) for _ in range(4)])
        self.layers = nn.Identity()


class Counted(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(64, 64) for _ in range(depth)])
        self.layers = nn.Identity()


class Arms(nn.Module):
    def __init__(self, wide):
        super().__init__()
        self.t = torch.zeros(512, 256) if wide else torch.zeros(4, 4)
        self.t = torch.zeros(1)


class Tables(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = nn.ParameterList([nn.Parameter(torch.zeros(512, 256)) for _ in range(2)])
        self.t = None


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(192, 768), nn.Linear(768, 192)
        self.a = nn.Identity()


class Decided(nn.Module):
    def __init__(self):
        super().__init__()
        big = False
        self.t = torch.zeros(512, 512) if big else torch.zeros(4, 4)
        self.t = None


class Optional(nn.Module):
    def __init__(self, use_proj=False):
        super().__init__()
        self.proj = nn.Linear(1024, 1024) if use_proj else nn.Identity()
        self.proj = nn.Linear(1024, 1024)


class Deferred(nn.Module):
    def __init__(self):
        super().__init__()
        self.makers = [lambda: nn.Linear(64, 64) for _ in range(128)]
        self.makers = []


class Filtered(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(64, 64) for i in range(128) if i >= 0])
        self.layers = nn.Identity()


class Stepped(nn.Module):
    def __init__(self):
        super().__init__()
        n = 256
        self.layers = nn.ModuleList([nn.Linear(64, 64) for _ in range(0, n, 2)])
        self.layers = nn.Identity()


class Unread(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(192, 768), somelib.Act(), nn.Linear(768, 192))
        self.mlp = nn.Identity()
"""


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    root = tmp_path_factory.mktemp("written")
    (root / "pyproject.toml").write_text('[project]\nname = "written"\n')
    (root / "written.py").write_text(SOURCE)
    report = check([root], cwd=root, use_cache=False)
    return {
        d.class_name.rsplit(".", 1)[-1]: (d.severity, d.message)
        for d in report.diagnostics
        if d.code == "IL005"
    }


def test_layers_of_a_few_numbers_each_add_up(found: dict[str, tuple[str, str]]) -> None:
    assert found["Mlp"][0] == "error"  # (2 x 147,456 numbers)
    assert found["One"][0] == "warning"  # (147,456 numbers: under a mebibyte)
    assert found["Tables"][0] == "error"  # (2 x 131,072)


def test_a_comprehension_counts_its_written_range(found: dict[str, tuple[str, str]]) -> None:
    assert found["Stacked"][0] == "error"  # (128 x 4,096)
    assert found["FewStacked"][0] == "warning"


def test_a_count_not_written_out_is_a_total_not_known(
    found: dict[str, tuple[str, str]],
) -> None:
    severity, message = found["Counted"]
    assert severity == "warning"
    assert "not known" in message


def test_either_arm_alone(found: dict[str, tuple[str, str]]) -> None:
    assert found["Arms"][0] == "warning"  # (one arm runs: 131,072 at most)
    assert found["Decided"][0] == "warning"  # (the local decides the arm: 16 numbers)
    severity, message = found["Optional"]  # (an identity with the default)
    assert severity == "warning"
    assert "some paths" in message


def test_what_is_not_built_together_is_not_summed(found: dict[str, tuple[str, str]]) -> None:
    assert found["Pair"][0] == "warning"  # (each target holds one of the two)
    assert found["Deferred"][0] == "warning"  # (a lambda written builds nothing)


def test_counts_written_out_or_not(found: dict[str, tuple[str, str]]) -> None:
    severity, message = found["Filtered"]  # (a condition: how many is not known)
    assert severity == "warning"
    assert "not known" in message
    assert found["Stepped"][0] == "error"  # (128 items of a range over a local's number)


def test_a_part_not_known_does_not_hide_a_known_total(
    found: dict[str, tuple[str, str]],
) -> None:
    assert found["Unread"][0] == "error"  # (295,872 numbers beside an unknown part)
