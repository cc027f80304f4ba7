import torch
from torch import nn


class CachedBase(nn.Module):
    def __init__(self, size: int = 64, dim: int = 8, *, init_cache: bool = True) -> None:
        super().__init__()
        self.size = size
        self.dim = dim
        if init_cache:
            self.register_buffer("cache", self._build(), persistent=False)

    def _build(self) -> torch.Tensor:
        return torch.arange(self.size * self.dim, dtype=torch.float32).reshape(self.size, self.dim)


class TableBase(nn.Module):
    def __init__(self, size: int = 32) -> None:
        super().__init__()
        self.table = torch.zeros(size, dtype=torch.float64)


class WeightBase(nn.Module):
    def __init__(self, n: int = 16) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n))
