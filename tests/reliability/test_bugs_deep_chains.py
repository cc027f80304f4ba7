"""Deep __init__ chains are analysed to the end; past the simulation's limits the class is
reported as IL902 ("analysis stopped: ..."), never silently skipped."""

from __future__ import annotations

import textwrap
import time

import pytest

import initlint.simulation.engine as sim_engine

from .conftest import Project, by_code, marked_lines, summary
from .test_deep_inputs import HEAD, chain_source


def _busy_chain(levels: int) -> str:
    """Every level does some work of its own after super().__init__(), so none is skipped."""
    parts = [
        HEAD,
        "class C0(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        '        self.register_buffer("cache", torch.zeros(8))\n',
    ]
    parts += [
        f"\nclass C{i}(C{i - 1}):\n    def __init__(self, a{i}=1):\n"
        f"        super().__init__()\n        self.x{i} = a{i}\n"
        for i in range(1, levels)
    ]
    parts.append(
        f"\nclass Leaf(C{levels - 1}):\n    def __init__(self):\n        super().__init__()\n"
        '        self.register_buffer("cache", torch.zeros(8))  # REDO\n'
    )
    return "".join(parts)


@pytest.mark.parametrize("levels", [49, 100, 200])
def test_redo_at_the_leaf_of_a_deep_chain_is_found(project: Project, levels: int) -> None:
    source = chain_source(levels, register=True, redo=True)
    project.write("chain.py", source)
    analysis = project.check()
    assert summary(analysis) == [("chain.py", line, "IL001") for line in marked_lines(source)]
    assert analysis.internal_errors == 0


@pytest.mark.parametrize("levels", [100, 250])
def test_redo_at_the_leaf_of_a_deep_busy_chain_is_found(project: Project, levels: int) -> None:
    source = _busy_chain(levels)
    project.write("chain.py", source)
    analysis = project.check()
    assert summary(analysis) == [("chain.py", line, "IL001") for line in marked_lines(source)]
    assert analysis.internal_errors == 0


def test_redo_of_a_helper_called_by_the_root_of_a_deep_chain(project: Project) -> None:
    """A method call made by the root dispatches through the leaf's 150-class MRO."""
    source = chain_source(150, register=False, redo=False).replace(
        "        super().__init__()\n        pass\n",
        "        super().__init__()\n        self._build()\n\n"
        "    def _build(self):\n"
        '        self.register_buffer("cache", torch.arange(8.0))\n',
        1,
    )
    source += (
        "\n\nclass Leaf(C149):\n    def __init__(self):\n        super().__init__()\n"
        "        self._build()  # REDO\n"
    )
    project.write("chain.py", source)
    analysis = project.check()
    assert [(d.line, d.code) for d in analysis.diagnostics] == [(marked_lines(source)[0], "IL002")]
    assert analysis.internal_errors == 0


def test_chain_deeper_than_the_limit_is_il902(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sim_engine, "MAX_DEPTH", 20)
    source = _busy_chain(30)
    source += (
        "\n\nclass Near(C5):\n    def __init__(self):\n        super().__init__()\n"
        '        self.register_buffer("cache", torch.zeros(8))  # NEAR\n'
    )
    project.write("chain.py", source)
    analysis = project.check()
    (near_line,) = marked_lines(source, "# NEAR")
    assert ("chain.py", near_line, "IL001") in summary(analysis)
    stopped = by_code(analysis, "IL902")
    # C21..C29 and Leaf go deeper than 20 calls: each is reported, none silently skipped.
    assert sorted(d.message.split(":")[0] for d in stopped) == sorted(
        [f"internal error in chain.C{i}" for i in range(21, 30)] + ["internal error in chain.Leaf"]
    )
    for d in stopped:
        assert "analysis stopped: the __init__ chain is deeper than 20 calls" in d.message
        assert "Traceback" not in d.message
    assert analysis.internal_errors == len(stopped) == 10
    # Nothing else is reported for the classes that were not fully analysed.
    assert {d.code for d in analysis.diagnostics} == {"IL001", "IL902"}
    assert [d.line for d in by_code(analysis, "IL001")] == [near_line]


def test_chain_deeper_than_the_real_limit_is_il902(project: Project) -> None:
    levels = sim_engine.MAX_DEPTH + 5
    project.write("chain.py", chain_source(levels, register=True, redo=True))
    analysis = project.check()
    (d,) = analysis.diagnostics
    assert (d.code, d.path) == ("IL902", "chain.py")
    assert d.message == (
        "internal error in chain.Leaf: SimulationLimit: analysis stopped: the __init__ chain "
        f"is deeper than {sim_engine.MAX_DEPTH} calls; the class was not fully checked"
    )
    assert analysis.internal_errors == 1


def test_cli_exits_2_past_the_limit(project: Project) -> None:
    project.write("chain.py", _busy_chain(30))
    prelude = "import initlint.simulation.engine as e\ne.MAX_DEPTH = 20\n"
    result = project.cli(".", prelude=prelude, fmt="text")
    result.assert_no_traceback()
    assert result.returncode == 2
    assert "analysis stopped: the __init__ chain is deeper than 20 calls" in result.stdout


FAN_OUT = HEAD + textwrap.dedent("""
    class Base(nn.Module):
        def __init__(self):
            super().__init__()
            self.m0()
            self.register_buffer("cache", torch.zeros(8))
    METHODS

    class Child(Base):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(8))  # REDO
""")


def _fan_out(depth: int) -> str:
    """m0 calls m1 twice, m1 calls m2 twice, ...: 2**depth calls in all."""
    methods = "".join(
        f"\n    def m{i}(self):\n        self.m{i + 1}()\n        self.m{i + 1}()\n"
        for i in range(depth)
    )
    methods += f"\n    def m{depth}(self):\n        self.x = torch.ones(2)\n"
    return FAN_OUT.replace("METHODS\n", methods)


def test_call_fan_out_stops_at_the_frame_budget(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sim_engine, "MAX_FRAMES", 1000)
    project.write("small.py", _fan_out(6))  # 127 calls: analysed
    project.write("big.py", _fan_out(12))  # 8191 calls: stopped
    analysis = project.check()
    small_line = marked_lines(_fan_out(6))[0]
    assert ("small.py", small_line, "IL001") in summary(analysis)
    big = [d for d in analysis.diagnostics if d.path == "big.py"]
    # Base is built on nn.Module, whose construction is known without torch: it is simulated
    # like Child, and stopped the same way.
    assert sorted(d.message.split(":")[0] for d in big) == [
        "internal error in big.Base",
        "internal error in big.Child",
    ]
    for d in big:
        assert d.code == "IL902"
        assert "analysis stopped: constructing it makes more than 1000 calls" in d.message


def test_call_fan_out_of_2_to_the_30_ends(project: Project) -> None:
    """Before the frame budget, this ran for ever (the depth limit alone allowed 2**48)."""
    project.write("big.py", _fan_out(30))
    start = time.perf_counter()
    analysis = project.check()
    assert time.perf_counter() - start < 60
    assert [d.code for d in analysis.diagnostics] == ["IL902", "IL902"]  # Base and Child
    assert analysis.internal_errors == 2


def test_long_chain_of_pass_through_classes_is_linear(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Classes whose __init__ only calls super().__init__() are not simulated (no rule can
    fire on them): a 1,000-level chain simulates the leaf and the root (built on nn.Module,
    it registers a buffer of its own), not 500,000 frames."""
    frames = []
    real = sim_engine._Run.execute

    def execute(self: sim_engine._Run, *args: object, **kwargs: object) -> None:
        real(self, *args, **kwargs)  # type: ignore[arg-type]
        frames.append(self.frames)

    monkeypatch.setattr(sim_engine._Run, "execute", execute)
    source = chain_source(1000, register=True, redo=True)
    project.write("chain.py", source)
    analysis = project.check()
    assert summary(analysis) == [("chain.py", marked_lines(source)[0], "IL001")]
    # Two simulations: the root's, and the leaf's (its __init__ and the 1,000 above it).
    assert (len(frames), max(frames, default=0)) == (2, 1001)
