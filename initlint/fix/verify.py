"""Check a fix plan before it is offered or written: re-simulate on the fixed sources.

The edited files' facts are re-extracted from the fixed text and overlaid on the project
index. The plan passes when its finding is gone and no class gains a finding it did not have,
loses an attribute, or reads one before it is built, among the classes under the edit and
the classes with a finding.

Only the classes that can see the edit are simulated again: those under it (an edited class
is in their MRO; an edited class is one whose lines hold an op), and those with a finding
whose check reads an edited module at all (a base resolved through it, a call whose cost
depends on it...). Which modules a class's check reads is found once per class, by checking
it on a fresh index that records every module it asks for. A class that reads no edited
module simulates on the fixed sources exactly as on the original ones, so its findings after
the fix are the ones it has now. The other classes of an edited file run none of the edited
code as their own construction (it is in no class of their MRO); what they build is what they
built. The libcst work (render) is remembered per file and ops.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

from initlint.diagnostics import describe
from initlint.facts.extract import extract_facts
from initlint.facts.model import BodyError, BodySyntaxError, ModuleFacts
from initlint.fix.apply import render
from initlint.fix.keys import finding_key
from initlint.fix.state import label
from initlint.fix.transform import FixError
from initlint.fixplan import FixPlan, Op
from initlint.index.loading import ProjectFiles
from initlint.index.project import ProjectIndex
from initlint.index.records import Module, NameTable
from initlint.pipeline.analysis import Analysis
from initlint.rules import findings_of
from initlint.rules.base import Finding
from initlint.simulation.cost import CostModel
from initlint.simulation.engine import Simulator
from initlint.simulation.reads import built, strands
from initlint.sources import UnreadableError, decode

Key = tuple[str, ...]
IndexT = TypeVar("IndexT", bound=ProjectIndex)


_key = finding_key


def _findings(sim: Simulator, index: ProjectIndex, classes: Iterable[str]) -> set[Key]:
    """Finding keys of ``classes``, plus one ("conflict", class) key per class whose
    construction would pass an argument twice."""
    out: set[Key] = set()
    for qual in classes:
        info = index.class_info(qual)
        if info is None:
            continue
        # The check skips a class that cannot have a finding (its __init__ only passes its
        # arguments on, say), but what it ends with still counts: deleting a child's only
        # redo leaves such a class, which still has everything its ancestors built.
        result = sim.simulate(info)
        if result is None:
            continue
        if isinstance(result, BodyError):
            # A body the construction reads does not parse: the fix cannot be checked
            # (``Verifier.verify`` says so, as for any other failure of the check).
            raise BodySyntaxError(result)
        if sim.needs_simulation(info):
            out |= {_key(f) for f in findings_of(result)}
        if result.conflicts:
            out.add((qual, "conflict", "", ""))
        # What the object ends with, and reads of what is not built yet (docs/design.md, "Fixes").
        out |= {(qual, "strand", label(s.reader.fn), s.name) for s in strands(result).values()}
        out |= {(qual, "has", "", name) for name in built(result)}
    return out


_STATE = ("conflict", "strand", "has")


class _Reads(ProjectIndex):
    """A project index that records the names of the modules whose facts are asked for.

    Every read of a module's facts goes through ``module()``: classes, methods, functions
    and names are all looked up in a Module it returned."""

    read: set[str]

    def module(self, name: str) -> Module | None:
        self.read.add(name)
        return super().module(name)


class Verifier:
    """Checks the plans of one analysis; keeps what does not depend on the plan."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.index = analysis.index
        self.simulator = analysis.simulator
        self.known: set[Key] = {_key(f) for f in analysis.findings}
        self.with_findings = {f.sim.cls.qualname for f in analysis.findings}
        self._before: dict[str, frozenset[Key]] = {}  # a class's keys on the original sources
        self._reads: dict[str, frozenset[str] | None] = {}  # None: could not tell
        self._under: dict[str, set[str]] = {}  # class -> the classes with it in their MRO
        self._scanned: set[str] = set()
        self._scanned_count = 0
        self._facts: dict[Path, ModuleFacts] = {}
        self._known_modules = 0
        self._side: dict[str, Module] = {}  # modules of the recording indexes (original facts)
        self._suffix: tuple[int, dict[str, list[str]]] | None = None
        # Per-module name tables: built from a module's facts alone, and rebuilt by the index
        # when the facts differ, so indexes over the same files can share them.
        self._tables = analysis.index.name_tables()

    # -- the check -------------------------------------------------------------------------
    def verify(self, plan: FixPlan, finding: Finding) -> str | None:
        """None when the plan is sound; else why it is not (never raises)."""
        by_file: dict[Path, list[Op]] = {}
        for op in plan.ops:
            by_file.setdefault(op.path, []).append(op)
        try:
            fixed = {p: extract_facts(decode(render(p, ops).new)[0]) for p, ops in by_file.items()}
        except (FixError, OSError, UnicodeError, UnreadableError) as exc:
            return str(exc)
        except Exception as exc:  # noqa: BLE001 - a fix that cannot be made is not offered
            return f"the fix could not be made ({type(exc).__name__})"
        try:
            return self._check(finding, fixed, by_file)
        except Exception as exc:  # noqa: BLE001 - a fix that cannot be checked is not offered
            return f"the fix could not be checked: {describe(exc)}"

    def _check(
        self, finding: Finding, fixed: dict[Path, ModuleFacts], ops: dict[Path, list[Op]]
    ) -> str | None:
        index = self.index
        edited = {name: m for name, m in index.modules.items() if m.path in fixed}
        under_edit = self._under_edit(edited, ops)
        touched = sorted(self.with_findings | under_edit)
        before = set(self.known)
        for qual in touched:
            before |= {k for k in self._keys_before(qual) if k[1] in _STATE}
        again = [q for q in touched if q in under_edit or self._reads_any(q, edited)]
        after: set[Key] = set()
        if again:
            overlay = self._new_index(
                ProjectIndex, dict(index.modules), dict(index.module_paths), dict(self._tables)
            )
            for name, mod in edited.items():
                overlay.add_module(name, mod.path, mod.is_package, fixed[mod.path])
            after = _findings(self._simulator(overlay), overlay, again)
            self._keep_suffix(overlay)
        rerun = set(again)
        for qual in touched:
            if qual not in rerun:
                after |= self._keys_before(qual)
        if _key(finding) in after:
            return "the fix would not remove the finding"
        lost = sorted(k for k in before - after if k[1] == "has")
        if lost:
            cls, _, _, name = lost[0]
            return f"the fix would leave {cls.rsplit('.', 1)[-1]} without `self.{name}`"
        new = sorted(after - before)
        if new:
            cls, code, reader, name = new[0]
            if code == "strand":
                return f"the fix would make {reader} read `self.{name}` before it is built"
            if code == "conflict":
                return (
                    "the fix would pass an argument twice when constructing "
                    f"{cls.rsplit('.', 1)[-1]}"
                )
            if code == "has":
                return (
                    f"the fix would give {cls.rsplit('.', 1)[-1]} `self.{name}`, which it "
                    "did not have: more work, or another model"
                )
            return f"the fix would cause {code} on {cls.rsplit('.', 1)[-1]} (`{name}`)"
        return None

    # -- what is known before the fix ------------------------------------------------------
    def _keys_before(self, qual: str) -> frozenset[Key]:
        keys = self._before.get(qual)
        if keys is None:
            keys = self._before[qual] = frozenset(_findings(self.simulator, self.index, [qual]))
        return keys

    def _under_edit(self, edited: dict[str, Module], ops: dict[Path, list[Op]]) -> set[str]:
        """The classes of the loaded project modules with an edited class in their MRO. An
        edited class: one with a method whose lines hold an op (ops are made in __init__
        methods); an op in no method makes every class of its file count as edited."""
        index = self.index
        while len(index.modules) != self._scanned_count:  # an MRO may load modules
            self._scanned_count = len(index.modules)
            for mod in list(index.modules.values()):
                if mod.name in self._scanned:
                    continue
                self._scanned.add(mod.name)
                if mod.is_dependency:  # installed code: it subclasses no project class
                    continue
                for info in index.classes_of(mod):
                    for qual in index.mro(info.qualname).classes:
                        self._under.setdefault(qual, set()).add(info.qualname)
        out: set[str] = set()
        for mod in edited.values():
            classes = index.classes_of(mod)
            for op in ops.get(mod.path, ()):
                around = [
                    c
                    for c in classes
                    if any(m.span.line <= op.line <= m.span.end_line for m in c.facts.methods)
                ]
                for info in around or classes:
                    out |= self._under.get(info.qualname, set())
        return out

    def _reads_any(self, qual: str, edited: dict[str, Module]) -> bool:
        if qual not in self._reads:
            self._reads[qual] = self._record_reads(qual)
        reads = self._reads[qual]
        return reads is None or any(name in reads for name in edited)

    def _record_reads(self, qual: str) -> frozenset[str] | None:
        """The modules whose facts checking ``qual`` reads, on a fresh index (its caches
        would hide the reads of earlier checks)."""
        if not self._side:
            self._side = dict(self.index.modules)
        recorder = self._new_index(_Reads, self._side, self.index.module_paths, self._tables)
        recorder.read = set()
        try:
            _findings(self._simulator(recorder), recorder, [qual])
        except Exception:  # noqa: BLE001 - simulated again, and checked there
            return None
        self._keep_suffix(recorder)
        return frozenset(recorder.read)

    # -- indexes over the same files -------------------------------------------------------
    def _new_index(
        self,
        kind: type[IndexT],
        modules: dict[str, Module],
        paths: dict[str, tuple[Path | str, bool]],
        tables: dict[str, NameTable],
    ) -> IndexT:
        suffix = None
        if self._suffix is not None and self._suffix[0] == len(paths):
            suffix = self._suffix[1]
        return kind.sharing(paths, ProjectFiles(self._load), modules, tables, suffix)

    def _keep_suffix(self, index: ProjectIndex) -> None:
        """The suffix table depends on the module names only: build it once, not per index."""
        if self._suffix is None and index.suffix_map is not None:
            self._suffix = (len(index.module_paths), index.suffix_map)

    def _load(self, path: Path) -> ModuleFacts:
        """The facts of a file the original index has not loaded yet, read once."""
        if len(self.index.modules) != self._known_modules:
            self._known_modules = len(self.index.modules)
            for mod in list(self.index.modules.values()):
                self._facts.setdefault(mod.path, mod.facts)
        facts = self._facts.get(path)
        if facts is None:
            facts = self._facts[path] = self.index.loader.load(path)
        return facts

    def _simulator(self, index: ProjectIndex) -> Simulator:
        settings = self.analysis.settings
        return Simulator(index, CostModel(index, settings.expensive_calls, settings.cheap_calls))


def verify(analysis: Analysis, plan: FixPlan, finding: Finding) -> str | None:
    """None when the plan is sound; else why it is not. To check many plans of one analysis,
    use one Verifier: it keeps what they share."""
    return Verifier(analysis).verify(plan, finding)
