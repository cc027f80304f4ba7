"""Static findings against runtime repeats, matched on the class that actually runs.

The runtime oracle (``benchmarks/runtime_oracle.py``) constructs a library's models and groups
the repeats it saw; ``initlint check`` reports findings on the library's sources. Comparing the
two by exact class name is wrong for generated code: in a transformers-style project the
classes that run are those of the generated ``modeling_x.py``, while a template
(``modular_x.py``, never imported) holds the code they were made from. So a finding is mapped
to the classes that *run* for it before it is compared:

- a finding in an ordinary file (a generated file included) is about its own classes;
- a finding in a template is about the classes of the same name that the files generated
  from it define (``pkg.models.x.modular_x.Foo`` -> ``pkg.models.x.modeling_x.Foo``); a template
  class that no generated file defines runs nowhere.

A finding is *on a constructed class* when one of those classes is in the MRO of a class the
runtime built (a subclass runs the finding's ``__init__`` too). It *predicts* a repeat group when
the group's objects have one of its classes in their MRO and either its statement was on the
stack when the work was redone or it names the repeated item and its rule predicts repeats of
that kind (``Rule.runtime_repeats``).

No torch here: this runs on plain records (what the oracle writes), so it is tested without
any model library.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from initlint.generated import GeneratedCode
from initlint.records import dataclass
from initlint.rules.base import runtime_repeats_of

from .model_trace import StaticFinding


@dataclass(frozen=True)
class MappedFinding:
    """A static finding with the classes that run for it (see the module docstring)."""

    finding: StaticFinding
    runs_as: tuple[str, ...]
    template: bool  # found in a template (a file the default configuration does not report on)

    @property
    def where(self) -> str:
        return self.finding.where


@dataclass(frozen=True)
class RuntimeGroup:
    """One runtime repeat group: a class's repeat of one item at the same sites.

    ``bases`` is the qualified names of the objects' classes (their MRO); ``frames`` the
    project frames ("file:line", in the files the runtime imported) on the stack when the work
    was redone."""

    class_name: str
    bases: tuple[str, ...]
    kind: str
    name: str
    frames: tuple[str, ...]
    bytes: int = 0
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Comparison:
    """Which findings predicted which repeats, and what each side has alone."""

    on_constructed: tuple[MappedFinding, ...]
    agreement: tuple[tuple[RuntimeGroup, MappedFinding], ...]  # each group with its finding
    runtime_only: tuple[RuntimeGroup, ...]
    static_only: tuple[MappedFinding, ...]  # on constructed classes, no repeat matched
    # every finding that predicted at least one repeat (a group names only its best one)
    findings_agreeing: tuple[MappedFinding, ...] = ()


def _key(f: MappedFinding) -> str:
    return f"{f.finding.code} {f.finding.where}"


def _module_file(root: Path, module: str) -> Path | None:
    """The source file of ``module`` below ``root`` (the folder holding the top package)."""
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


class ClassMapper:
    """Maps a finding's classes to the classes that run for it, with caches.

    ``root`` is the folder that holds the library's top package, so that ``pkg.models.x``
    is ``root/pkg/models/x.py``."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self._root = Path(root)
        self._generated = GeneratedCode()
        self._defined: dict[Path, frozenset[str]] = {}
        self._made_from: dict[Path, tuple[Path, ...]] = {}

    def is_template(self, path: str | os.PathLike[str]) -> bool:
        return self._generated.is_template(Path(path))

    def map(self, finding: StaticFinding) -> MappedFinding:
        runs: dict[str, None] = {}
        for qualname in finding.classes:
            for name in self.runs_as(qualname):
                runs.setdefault(name, None)
        return MappedFinding(finding, tuple(runs), self.is_template(finding.path))

    def runs_as(self, qualname: str) -> tuple[str, ...]:
        """The classes that run for class ``qualname``: itself, or, for a class of a template,
        the classes of that name in the files generated from the template."""
        module, _, name = qualname.rpartition(".")
        file = _module_file(self._root, module) if module else None
        if file is None or not self.is_template(file):
            return (qualname,)
        package = module.rpartition(".")[0]
        found = []
        for generated in self._generated_from(file):
            if name in self._top_classes(generated):
                prefix = f"{package}." if package else ""
                found.append(f"{prefix}{generated.stem}.{name}")
        return tuple(found)

    def _generated_from(self, template: Path) -> tuple[Path, ...]:
        made = self._made_from.get(template)
        if made is None:
            folder = template.parent
            made = tuple(
                sorted(
                    p
                    for p in folder.glob("*.py")
                    if p != template
                    and not p.name.startswith("modular_")
                    and (source := self._generated.template_of(p)) is not None
                    and source.name == template.name
                )
            )
            self._made_from[template] = made
        return made

    def _top_classes(self, path: Path) -> frozenset[str]:
        names = self._defined.get(path)
        if names is None:
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            names = frozenset(re.findall(r"^class\s+(\w+)", text, re.M))
            self._defined[path] = names
        return names


def _short(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


def predicts(finding: MappedFinding, group: RuntimeGroup, where: str) -> bool:
    """Whether ``finding`` (at ``where``, in the runtime's file paths) predicted ``group``."""
    if not set(finding.runs_as) & set(group.bases or (group.class_name,)):
        return False
    if where in group.frames:
        return True
    name = _short(group.name)
    message = finding.finding.message
    return group.kind in runtime_repeats_of(finding.finding.code) and (
        f"`{name}`" in message or f"`self.{name}" in message
    )


def compare(
    findings: Iterable[MappedFinding],
    groups: Sequence[RuntimeGroup],
    constructed: Mapping[str, Sequence[str]],
    *,
    path_map: Mapping[str, str] | None = None,
) -> Comparison:
    """Match ``findings`` to runtime ``groups``; ``constructed`` maps each class the runtime
    built to its MRO; ``path_map`` rewrites findings' path prefixes to the runtime's."""
    running = {c for mro in constructed.values() for c in mro}
    on = tuple(f for f in findings if set(f.runs_as) & running)

    def where(f: MappedFinding) -> str:
        for old, new in (path_map or {}).items():
            if f.finding.path.startswith(old):
                return f"{new}{f.finding.path[len(old) :]}:{f.finding.line}"
        return f.finding.where

    located = [(f, where(f)) for f in on]
    agreement = []
    runtime_only = []
    matched: set[str] = set()
    for g in groups:
        at_frame = [f for f, w in located if w in g.frames and predicts(f, g, w)]
        named = at_frame or [f for f, w in located if predicts(f, g, w)]
        if named:
            # A finding in a file that runs wins over a template's (it is what a user sees).
            best = sorted(named, key=lambda f: f.template)[0]
            agreement.append((g, best))
            matched.update(_key(f) for f in named)
        else:
            runtime_only.append(g)
    static_only = tuple(f for f in on if _key(f) not in matched)
    agreeing = tuple(f for f in on if _key(f) in matched)
    return Comparison(on, tuple(agreement), tuple(runtime_only), static_only, agreeing)
