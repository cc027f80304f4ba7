"""A vision model whose rebuilt tower rebuilds its own block: waste inside waste.

VisionModel rebuilds ``tower`` after VisionBase built it, and every Tower rebuilds ``block`` after
TowerBase built it, so the first tower's own rebuilt block is waste inside waste. Each Layer
registers ``table`` again after LayerBase did.
"""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)


class TowerBase(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.block = Block(dim)


class Tower(TowerBase):
    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.block = Block(dim)


class LayerBase(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.register_buffer("table", torch.zeros(dim, dim))


class Layer(LayerBase):
    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.register_buffer("table", torch.zeros(dim, dim))


class VisionBase(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.tower = Tower(dim)


class VisionModel(VisionBase):
    def __init__(self, dim: int = 16, layers: int = 3) -> None:
        super().__init__(dim)
        self.tower = Tower(dim)
        self.layers = nn.ModuleList(Layer(dim) for _ in range(layers))


class CleanModel(nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.tower = TowerBase(dim)
        self.layers = nn.ModuleList(LayerBase(dim) for _ in range(2))


class Registry:
    """Lives before any model is built: what a model looks up in it is not the model's work."""

    def lookup(self, name: str) -> str:
        return name.upper()


REGISTRY = Registry()


class Loader:
    """A project object built during the call that loads twice."""

    def __init__(self) -> None:
        self.data = self._load()
        self.data = self._load()

    def _load(self) -> list[int]:
        return list(range(8))


class Initialised(nn.Module):
    """Initialises each submodule once (other arguments: not a repeat), and ``a`` twice."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.kind = REGISTRY.lookup("x") + REGISTRY.lookup("x")
        self.loader = Loader()
        for module in (self.a, self.b):
            self._init(module)
        self._init(self.a)

    def _init(self, module: nn.Module) -> None:
        nn.init.zeros_(module.weight)


class Rotary(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.register_buffer("inv_freq", torch.arange(dim, dtype=torch.float32))


class AttentionBase(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.dim = dim
        self._init_rope()

    def _init_rope(self) -> None:
        self.rotary = Rotary(self.dim)


class Attention(AttentionBase):
    """Calls the helper again: the call and the submodule it assigns are both repeated."""

    def __init__(self, dim: int = 8) -> None:
        super().__init__(dim)
        self._init_rope()
