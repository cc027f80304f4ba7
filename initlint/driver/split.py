"""The check's second half in a forked copy of the process, once the pool is idle."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path

from initlint.diagnostics import Diagnostic
from initlint.facts.cache import FactsCache, pickle_facts, unpickle_facts
from initlint.index.project import Module
from initlint.pipeline.analysis import Analysis
from initlint.pipeline.report import Entry
from initlint.progress import Progress


def check_in_two(
    rest: list[Path],
    check: Callable[[Path], None],
    admit: Callable[[Path], Module | None],
    analysis: Analysis,
    cache: FactsCache,
    keys: dict[Path, str],
    partials: dict[Path, list[Entry]],
    checking: Progress,
) -> None:
    """Check ``rest`` with a forked copy of this process taking the second half.

    Once the pool has read every file, its workers sit idle while this process checks what
    is left alone. The copy starts with everything loaded so far and sends back what the
    check loop would have recorded for its half: each file's diagnostics, and each module
    it loaded (facts and content key) for the results cache and the facts cache. Text and
    GitHub output only (``reuse_results``): the copy's findings and fix plans stay there.
    If the copy fails in any way, this process checks its half itself.
    """
    half = len(rest) // 2
    here, there = rest[:half], rest[half:]  # this process checks here, the copy there
    index = analysis.index
    before = set(index.modules)
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        for file in rest:
            check(file)
        return
    if pid == 0:  # the copy: no cache writes (its file handles belong to the parent)
        status = 1
        try:
            os.close(read_fd)
            cache.enabled = False
            checking.enabled = False
            for file in there:
                check(file)
            own = set(there)  # the parent has these files' facts in its own stream
            loaded = [
                (
                    name,
                    str(m.path),
                    m.is_package,
                    keys.get(m.path, ""),
                    pickle_facts(m.facts),
                    m.dist,
                )
                for name, m in index.modules.items()
                if name not in before and m.path not in own
            ]
            sent = {str(f): partials.get(f) for f in there}
            data = pickle.dumps((sent, loaded), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_fd)
    for file in here:
        check(file)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    try:
        if status != 0:
            raise ValueError(f"checking copy ended with status {status}")
        sent, loaded = pickle.loads(data)
    except Exception:  # noqa: BLE001 - the copy failed: check its half here
        for file in there:
            check(file)
        return
    for name, path, is_pkg, key, blob, dist in loaded:
        if name in index.modules or blob is None:
            continue
        facts = unpickle_facts(blob)
        index.adopt(Module(name, Path(path), is_pkg, facts, dist))
        if key:
            keys[Path(path)] = key
            cache.put_blob(key, blob)
    for file in there:
        checking.advance()
        admit(file)  # what the copy admitted, admitted here too (the results cache needs it)
        got = sent.get(str(file))
        if got is not None:
            partials[file] = got


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
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return attach(diags)
    if pid == 0:  # the copy: no cache writes (its file handles belong to the parent)
        status = 1
        try:
            os.close(read_fd)
            cache.enabled = False
            got = attach(there)
            data = pickle.dumps([got.get(d) for d in there], protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_fd)
    done = attach(here)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    try:
        if status != 0:
            raise ValueError(f"fix-checking copy ended with status {status}")
        sent = pickle.loads(data)
        if len(sent) != len(there):
            raise ValueError("fix-checking copy sent a short answer")
    except Exception:  # noqa: BLE001 - the copy failed: check its half here
        done.update(attach(there))
        return done
    done.update({d: new for d, new in zip(there, sent, strict=True) if new is not None})
    return done
