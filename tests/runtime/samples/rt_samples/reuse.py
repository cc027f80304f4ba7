"""Code that stores again what it already holds, without building anything twice.

- ``SharedHeads`` looks its embedding up by name (a getter) once per head it ties to it: the
  getter hands back a tensor that already exists; it builds nothing.
- ``WrappedDetector`` builds a backbone, reads it, then wraps it: the wrapper holds the very
  backbone it was given, so nothing was rebuilt. ``RebuiltThenWrapped`` does rebuild it first.
- ``NormedConv`` hands its conv to ``weight_norm``, which changes it in place and returns it;
  ``SelfTied`` assigns its own weight back to itself. Neither builds a second module or tensor.
"""

import torch
from torch import nn


class SharedHeads(nn.Module):
    def __init__(self, vocab: int = 64, dim: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head_a = nn.Linear(dim, vocab, bias=False)
        self.head_b = nn.Linear(dim, vocab, bias=False)
        for head in (self.head_a, self.head_b):
            head.weight = self.lookup("embed.weight")

    def lookup(self, dotted: str) -> torch.Tensor:
        owner, _, name = dotted.rpartition(".")
        found: torch.Tensor = getattr(self.get_submodule(owner), name)
        return found


class Backbone(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.stem = nn.Linear(dim, dim)
        self.widths = [dim, dim]


class WithPositions(nn.Module):
    def __init__(self, backbone: nn.Module, dim: int) -> None:
        super().__init__()
        self.inner = backbone
        self.positions = nn.Linear(dim, dim)


class WrappedDetector(nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.backbone = Backbone(dim)
        self.project = nn.Linear(self.backbone.widths[-1], dim)
        self.backbone = WithPositions(self.backbone, dim)


class DetectorBase(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.backbone = Backbone(dim)


class RebuiltThenWrapped(DetectorBase):
    def __init__(self, dim: int = 16) -> None:
        super().__init__(dim)
        self.backbone = Backbone(dim)
        self.backbone = WithPositions(self.backbone, dim)


class NormedConv(nn.Module):
    def __init__(self, channels: int = 8, parametrized: bool = False) -> None:
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, 3)
        if parametrized:
            self.conv = nn.utils.parametrizations.weight_norm(self.conv)
        else:
            self.conv = nn.utils.weight_norm(self.conv)


class SelfTied(nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(dim, dim))
        self.weight = self.weight
