import torch
from rt_helpers import PrepareMixin
from torch import nn

from rt_samples.base import CachedBase, TableBase, WeightBase


class BuggyChild(CachedBase):
    """super() already built and registered the cache; this builds and registers it again."""

    def __init__(self, size: int = 64, dim: int = 8) -> None:
        super().__init__(size, dim)
        self.register_buffer("cache", self._build(), persistent=False)


class FixedChild(CachedBase):
    def __init__(self, size: int = 64, dim: int = 8) -> None:
        super().__init__(size, dim, init_cache=False)
        self.register_buffer("cache", self._build(), persistent=False)


class ReassignChild(CachedBase):
    """A plain tensor assigned to an existing buffer name replaces the buffer."""

    def __init__(self) -> None:
        super().__init__()
        self.cache = self._build()


class NewBufferChild(CachedBase):
    def __init__(self) -> None:
        super().__init__()
        self.cache = nn.Buffer(self._build())


class TableChild(TableBase):
    def __init__(self, size: int = 32) -> None:
        super().__init__(size)
        self.table = torch.zeros(size, dtype=torch.float64)


class WeightChild(WeightBase):
    def __init__(self, n: int = 16) -> None:
        super().__init__(n)
        self.weight = nn.Parameter(torch.empty(n))


class RegisteredWeightChild(WeightBase):
    def __init__(self, n: int = 16) -> None:
        super().__init__(n)
        self.register_parameter("weight", nn.Parameter(torch.ones(n)))


class CalledOnce(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.steps = self._count(3)
        self.register_buffer("cache", torch.ones(4))

    def _count(self, n: int) -> int:
        # Recursion is one top-level invocation, not four.
        return 0 if n == 0 else 1 + self._count(n - 1)


class CalledTwice(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = self._count(2)
        self.b = self._count(2)

    def _count(self, n: int) -> int:
        return 0 if n == 0 else 1 + self._count(n - 1)


class TwoLinears(nn.Module):
    """Each submodule registers its own "weight": not a repeat of the outer object."""

    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Linear(4, 4)
        self.second = nn.Linear(4, 4)


class Prepared(PrepareMixin, nn.Module):
    """_prepare lives in rt_helpers, outside this package, and runs twice."""

    def __init__(self) -> None:
        super().__init__()
        self._prepare()
        self._prepare()


class Failing(CachedBase):
    def __init__(self) -> None:
        super().__init__()
        raise ValueError("boom: bad config")


class GrowingCache(nn.Module):
    """Two registrations of different sizes: the waste is the first one's bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.ones(4))
        self.register_buffer("cache", torch.ones(8))


class PlainTwice:
    """Not an nn.Module: calls are still recorded."""

    def __init__(self) -> None:
        self.first = self._load()
        self.second = self._load()

    def _load(self) -> list[int]:
        return [1, 2, 3]
