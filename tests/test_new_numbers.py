"""``self.w.data = v`` gives the tensor ``w`` holds other numbers whole: the Parameter object
stays, what its registration built goes. A build replaced so before anything read it is
thrown away (IL005), as one stored again would be; not when the new numbers are computed
from the old ones, when something read the tensor in between, or when ``w`` holds a module
(setting ``.data`` on a module only adds an attribute)."""

from __future__ import annotations

from collections.abc import Callable

from initlint.api import Report

SOURCE = """
import torch
from torch import nn


class Given(nn.Module):
    def __init__(self, i=4096, r=64, init=None):
        super().__init__()
        self.lora_a = nn.Parameter(torch.empty(i, r))
        if init is not None:
            self.lora_a.data = init.to(torch.float16)
        else:
            nn.init.kaiming_uniform_(self.lora_a)


class Always(nn.Module):
    def __init__(self, table, i=4096, r=64):
        super().__init__()
        self.lora_a = nn.Parameter(torch.zeros(i, r))
        self.lora_a.data = table


class Halved(nn.Module):
    def __init__(self, i=4096, r=64):
        super().__init__()
        self.lora_a = nn.Parameter(torch.zeros(i, r))
        self.lora_a.data = self.lora_a.data.half()


class ReadFirst(nn.Module):
    def __init__(self, table, i=4096, r=64):
        super().__init__()
        self.lora_a = nn.Parameter(torch.zeros(i, r))
        self.saved = self.lora_a.detach().clone()
        self.lora_a.data = table


class OnModule(nn.Module):
    def __init__(self, table):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.proj.data = table
"""


def test_new_numbers_throw_the_build_away(check_source: Callable[..., Report]) -> None:
    found = {
        d.class_name.rsplit(".", 1)[-1]: (d.line, d.severity, d.confidence)
        for d in check_source(SOURCE).diagnostics
        if d.code == "IL005"
    }
    assert found == {"Given": (11, "error", "possible"), "Always": (20, "error", "definite")}
