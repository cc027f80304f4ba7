"""Code the rules' examples share (their VALID/INVALID snippets build on it)."""

BASE = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, n=8, init_cache=True):
        super().__init__()
        self.n = n
        if init_cache:
            self.register_buffer("cache", self._build(), persistent=False)

    def _build(self):
        return torch.arange(self.n, dtype=torch.float32).outer(torch.ones(4))

    def forward(self, x):
        return x @ self.cache
"""
