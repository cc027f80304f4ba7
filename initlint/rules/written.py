"""Files the construction writes itself. Whether a file exists is a state outside the
construction, except after the construction wrote it: once the work that saves
``self.processed_paths[0]`` has run, a test of that path's existence is true. A repeat
guarded by the file's absence then never follows that work; one guarded by its presence
is on the path every construction that did the work takes."""

from __future__ import annotations

import re

from initlint.simulation.records import WORLD_KEY, Event, Simulation
from initlint.simulation.values import TRUE

# A test of whether a path exists, as the guard's text gives it (``os.path.exists(p)``,
# ``osp.isfile(p)``): the path is its one argument.
_EXISTS = re.compile(r"[A-Za-z_][\w.]*\.(?:exists|isfile|isdir|lexists)\((?P<path>[^,]+)\)")


def decided(sim: Simulation, work: Event, later: Event) -> dict[str, bool]:
    """The tests of a state outside the construction that ``later`` runs under which the
    run of ``work`` decides, each with what ``later`` needs of it: the existence of a
    file the object's construction wrote at a path of the object, on every run of
    ``work``, after it and before ``later``."""
    made = _made_by(sim, work, later)
    out: dict[str, bool] = {}
    for key, truth in later.literals:
        if key.startswith(WORLD_KEY):
            found = _EXISTS.fullmatch(key.partition(":")[2])
            if found is not None and found["path"] in made:
                out[key] = truth
    return out


def never_after(sim: Simulation, work: Event, later: Event) -> bool:
    """Whether ``later`` runs only where a file is missing that every run of ``work``
    wrote before it: the two never both run."""
    return False in decided(sim, work, later).values()


def _made_by(sim: Simulation, work: Event, later: Event) -> frozenset[str]:
    """The paths of the object (``self.…``) a file was written at between ``work`` and
    ``later``, by a statement that runs whenever ``work`` does."""
    return frozenset(
        e.name
        for e in sim.events[work.index + 1 : later.index]
        if e.kind == "write" and _runs_with(e, work)
    )


def _runs_with(e: Event, work: Event) -> bool:
    """Whether ``e`` runs on every path ``work`` runs on: surely, or under no undecided
    condition ``work`` does not run under too."""
    if e.status == TRUE:
        return True
    return (
        not e.unkeyed
        and bool(e.literals)
        and set(e.literals) <= set(work.literals)
        and set(e.assume) <= set(work.assume)
    )
