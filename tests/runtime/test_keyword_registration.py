"""The tracer wraps torch's registration methods without changing how they are called:
``register_parameter(name=..., param=...)`` and ``register_buffer(name, tensor=...)`` work
under ``trace_init`` as without it, and are recorded."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from initlint.runtime import trace_init  # noqa: E402


class Base(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_parameter(name="points", param=torch.nn.Parameter(torch.zeros(4, 4)))
        self.register_buffer("table", tensor=torch.zeros(4, 4), persistent=False)


class Child(Base):
    def __init__(self) -> None:
        super().__init__()
        # registered again on purpose: the tracer must record both
        self.register_parameter(name="points", param=torch.nn.Parameter(torch.ones(4, 4)))  # noqa: IL001
        self.register_buffer(name="table", tensor=torch.ones(4, 4))  # noqa: IL001


def test_registrations_by_keyword_are_traced() -> None:
    trace = trace_init(Child)
    repeated = sorted((r.kind, r.name) for r in trace.repeated)
    assert repeated == [("buffer", "table"), ("parameter", "points")]
    built = Child()
    assert built.points.sum().item() == 16 and "table" in dict(built.named_buffers())
