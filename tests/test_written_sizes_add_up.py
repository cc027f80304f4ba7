"""Builds whose every size is written out are priced by what they hold, light under a
mebibyte each; several of them in one value add up (a transformer MLP of two such
``nn.Linear`` layers holds more than one alone), the items of a comprehension as often as
its ``range`` written out runs. A comprehension over a count not written out makes a total
not known: unknown, never light."""

from __future__ import annotations

import pytest

from initlint.api import check

SOURCE = """
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
        self.t = (torch.zeros(512, 256), torch.zeros(512, 256))
        self.t = None
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
