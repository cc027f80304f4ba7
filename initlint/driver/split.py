"""Work shared with a forked copy of the process: the files left to check once the pool is
idle, taken from both ends (``check_in_two``), and the second half of the fix checks
(``attach_in_two``). Both run on :func:`in_two`."""

from __future__ import annotations

import os
import pickle
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

from initlint.diagnostics import Diagnostic
from initlint.environment import Distribution
from initlint.facts.cache import FactsCache, pickle_facts, unpickle_facts
from initlint.index.records import Module
from initlint.pipeline.analysis import Analysis, FindingKey
from initlint.pipeline.report import Entry, Share
from initlint.progress import Progress

T = TypeVar("T")


def in_two(here: Callable[[], None], there: Callable[[], T], cache: FactsCache) -> T | None:
    """Run ``there`` in a forked copy of this process while this process runs ``here``, and
    return what ``there`` returned (it must pickle, and must not be None). None when the copy
    could not be started or failed in any way: the caller then does that half itself.

    The copy writes nothing to the caches (its file handles belong to this process) and
    ends with ``os._exit``: nothing of this process's shutdown runs twice."""
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        here()
        return None
    if pid == 0:  # the copy
        status = 1
        try:
            os.close(read_fd)
            cache.enabled = False
            data = pickle.dumps(there(), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_fd)
    try:
        here()
    finally:  # even when ``here`` raises: the copy is waited for, its pipe closed
        with os.fdopen(read_fd, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
    if status != 0:
        return None
    try:
        got: T = pickle.loads(data)
    except Exception:  # noqa: BLE001 - a short or broken answer: the copy failed
        return None
    return got


class CheckLoop(Protocol):
    """What one run's check loop holds, as the split needs it (``run._CheckRun``)."""

    analysis: Analysis
    cache: FactsCache
    keys: dict[Path, str]  # content hash of each module's cache entry
    partials: dict[Path, list[Entry]]  # report file -> the diagnostics it gives
    found: dict[Path, frozenset[FindingKey]]  # checked report file -> its findings' keys
    checking: Progress

    def check(self, file: Path) -> None: ...

    def admit(self, file: Path) -> Module | None: ...

    def check_admitted(self, mod: Module) -> None: ...


class TwoEnds:
    """The positions of a list that this process and a forked copy take, one at a time,
    this process from the front and the copy from the back, until they meet: each ends
    when the other does (however long its files take), and each still checks a run of
    neighbouring files, which share ancestors and dependencies. A cut fixed in advance
    (by count, or by the bases of the classes in each file) left one of them working
    alone for a third of the split on vLLM's layers, while it loaded modules the other
    never needed.

    The two ends live in an unlinked temporary file, changed under a POSIX record lock:
    locks are held per process, and the kernel drops the copy's if it dies. POSIX only (as
    is the fork): elsewhere it raises ImportError, and nothing is split."""

    def __init__(self, count: int) -> None:
        import fcntl  # here: this module is imported on every platform
        import tempfile  # (and a check that does not split needs neither)

        self._lock, self._locked, self._unlocked = fcntl.lockf, fcntl.LOCK_EX, fcntl.LOCK_UN
        self._file = tempfile.TemporaryFile()
        self._fd = self._file.fileno()
        os.pwrite(self._fd, _ENDS.pack(0, count), 0)

    def take(self, front: bool) -> int | None:
        """The next position from the front (or the back); None once the two ends met."""
        self._lock(self._fd, self._locked)
        try:
            first, end = _ENDS.unpack(os.pread(self._fd, _ENDS.size, 0))
            if first >= end:
                return None
            got: int = first if front else end - 1
            first, end = (first + 1, end) if front else (first, end - 1)
            os.pwrite(self._fd, _ENDS.pack(first, end), 0)
            return got
        finally:
            self._lock(self._fd, self._unlocked)

    def close(self) -> None:
        self._file.close()


_ENDS = struct.Struct("<QQ")  # the next position from the front, one past the last one left

# What the copy sends back: the positions it checked; each such file's diagnostics; each
# module it loaded (name, path, is_package, content key, pickled facts, distribution); and
# each checked file's findings' keys.
_Sent = tuple[
    list[int],
    dict[str, list[Entry] | None],
    list[tuple[str, str, bool, str, bytes | None, Distribution | None]],
    dict[str, frozenset[FindingKey]],
]


def check_in_two(rest: list[Path], run: CheckLoop, with_plans: bool) -> None:
    """Check ``rest`` with a forked copy of this process taking files from its end.

    Once the pool has read every file, its workers sit idle while this process checks what
    is left alone. The copy starts with everything loaded so far; this process checks
    files from the front of ``rest`` and the copy from the back until they meet
    (:class:`TwoEnds`). The copy sends back what the check loop would have recorded for
    its files: each file's diagnostics and findings' keys, and each module it loaded
    (facts and content key) for the results cache and the facts cache. Its findings and
    fix plans stay there.

    ``with_plans`` (JSON, SARIF: fixes are attached after the check): each fix's check needs
    the fix's plan and finding in this process, and every other finding's key. The copy's
    files whose diagnostics offer a fix are checked again here (a few of them, as the copy
    checked them: same index, same facts); the other findings are known by key. If the
    copy fails in any way, this process checks every file it did not check itself.
    """
    try:
        ends = TwoEnds(len(rest))
    except (ImportError, OSError):  # no record locks, or no temporary file: no split
        for file in rest:
            run.check(file)
        return
    index = run.analysis.index
    before = set(index.modules)
    mine: set[int] = set()  # positions this process checked

    def check_here() -> None:
        while (pos := ends.take(front=True)) is not None:
            mine.add(pos)
            run.check(rest[pos])

    def check_there() -> _Sent:  # in the copy
        run.checking.enabled = False
        taken: list[int] = []
        while (pos := ends.take(front=False)) is not None:
            taken.append(pos)
            run.check(rest[pos])
        there = [rest[pos] for pos in taken]
        own = set(there)  # the parent has these files' facts in its own stream
        loaded = [
            (
                name,
                str(m.path),
                m.is_package,
                run.keys.get(m.path, ""),
                pickle_facts(m.facts),
                m.dist,
            )
            for name, m in index.modules.items()
            if name not in before and m.path not in own
        ]
        sent = {str(f): run.partials.get(f) for f in there}
        found = {str(f): run.found[f] for f in there if f in run.found}
        return taken, sent, loaded, found

    try:
        got = in_two(check_here, check_there, run.cache)
    finally:
        ends.close()
    if got is None:  # the copy failed: check here what it took, and what it left
        for pos, file in enumerate(rest):
            if pos not in mine:
                run.check(file)
        return
    taken, sent, loaded, found = got
    for name, path, is_pkg, key, blob, dist in loaded:
        if name in index.modules or blob is None:
            continue
        facts = unpickle_facts(blob)
        index.adopt(Module(name, Path(path), is_pkg, facts, dist))
        if key:
            run.keys[Path(path)] = key
            run.cache.put_blob(key, blob)
    again: list[Module] = []
    for file in [rest[pos] for pos in sorted(taken)]:
        run.checking.advance()
        mod = run.admit(file)  # what the copy admitted, admitted here too (the results cache)
        got_partials = sent.get(str(file))
        if got_partials is not None:
            run.partials[file] = got_partials
        keys = found.get(str(file))
        if keys is not None:
            run.found[file] = keys
        if with_plans and mod is not None and _offers_fix(got_partials):
            again.append(mod)
    for mod in again:
        run.check_admitted(mod)


def _offers_fix(entries: list[Entry] | None) -> bool:
    """Whether a file's diagnostics hold a fix to attach (a suppressed one is not shown)."""
    return any(
        isinstance(e, Share) and not e.suppressed_line and e.diag.fix is not None
        for e in entries or ()
    )


def attach_in_two(
    diags: list[Diagnostic],
    attach: Callable[[list[Diagnostic]], dict[Diagnostic, Diagnostic]],
    cache: FactsCache,
) -> dict[Diagnostic, Diagnostic]:
    """``attach(diags)``, with a forked copy of this process checking the second half: each
    fix's check and edits depend on its plan and the sources only, and the copy sends back
    plain diagnostics. If the copy fails in any way, this process does its half itself."""
    half = len(diags) // 2
    here, there = diags[:half], diags[half:]  # this process checks here, the copy there
    done: dict[Diagnostic, Diagnostic] = {}

    def attach_here() -> None:
        done.update(attach(here))

    def attach_there() -> list[Diagnostic | None]:  # in the copy
        got = attach(there)
        return [got.get(d) for d in there]

    sent = in_two(attach_here, attach_there, cache)
    if sent is None or len(sent) != len(there):  # the copy failed: check its half here
        done.update(attach(there))
        return done
    done.update({d: new for d, new in zip(there, sent, strict=True) if new is not None})
    return done
