"""Render fix plans into new file contents, and write them all or none (docs/design.md, "Fixes")."""

from __future__ import annotations

import ast
import difflib
import os
import stat
import tempfile
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import field
from pathlib import Path

import libcst as cst

from initlint.diagnostics import Diagnostic, Edit
from initlint.fix.transform import FixError, rewrite
from initlint.fixplan import AddParam, FixPlan, Op, WrapInIf, op_site
from initlint.records import dataclass
from initlint.sources import decode, read_bytes

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class FileChange:
    path: Path
    old: bytes
    new: bytes

    def diff(self, display: str) -> str:
        old = self.old.decode("utf-8", "replace").splitlines(keepends=True)
        new = self.new.decode("utf-8", "replace").splitlines(keepends=True)
        lines = difflib.unified_diff(old, new, f"a/{display}", f"b/{display}")
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@dataclass
class FixOutcome:
    changes: list[FileChange] = field(default_factory=list)
    applied: list[Diagnostic] = field(default_factory=list)
    skipped_unsafe: list[Diagnostic] = field(default_factory=list)
    failed: list[tuple[Diagnostic, str]] = field(default_factory=list)
    # Planned fixes that verification withdrew: a fix that cannot be made correct is not made.
    withdrawn: list[tuple[Diagnostic, str]] = field(default_factory=list)


_RENDERED: OrderedDict[tuple[Path, bytes, tuple[Op, ...]], FileChange | str] = OrderedDict()
_RENDERED_KEEP = 32  # a plan is rendered to be checked, then again for its edits


def render(path: Path, ops: Sequence[Op]) -> FileChange:
    """Apply ops to one file, keeping its encoding, BOM and line endings; re-parse the result.

    Raises FixError when the ops cannot be applied or the result would not parse, whatever
    went wrong inside libcst (a deep expression can exhaust the stack anywhere in it).
    Results are remembered per file content and ops."""
    data = read_bytes(path)
    key = (path, data, tuple(ops))
    known = _RENDERED.get(key)
    if known is None:
        try:
            known = _render(path, data, ops)
        except FixError as exc:
            known = str(exc)
        _RENDERED[key] = known
        while len(_RENDERED) > _RENDERED_KEEP:
            _RENDERED.popitem(last=False)
    else:
        _RENDERED.move_to_end(key)
    if isinstance(known, str):
        raise FixError(known)
    return known


def _render(path: Path, data: bytes, ops: Sequence[Op]) -> FileChange:
    text, encoding = decode(data)
    try:
        new_text, changed = rewrite(text, ops)
    except FixError:
        raise
    except Exception as exc:  # noqa: BLE001 - libcst fails in many ways on hostile input
        raise FixError(_failure(path, exc, "could not be rewritten")) from exc
    _check_parses(path, new_text, changed)
    new = new_text.encode(encoding)
    if data.startswith(BOM) and not new.startswith(BOM):
        new = BOM + new
    return FileChange(path, data, new)


def _check_parses(path: Path, new_text: str, changed: list[str] | None) -> None:
    """Raise FixError unless libcst and ``ast`` both parse ``new_text``.

    When only some top-level statements changed, libcst parses just them: the others parsed
    before, and top-level statements tokenize and parse independently of each other (each
    starts at column 0 with no bracket open). So do the statements of a class body, at its
    indentation: a changed method is parsed alone under a class line of its own. If one of
    them does not parse alone, the whole text is parsed, so that the error is the whole
    file's."""
    try:
        if changed is None or not all(_libcst_parses(code) for code in changed):
            cst.parse_module(new_text)
        ast.parse(new_text)
    except (cst.ParserSyntaxError, SyntaxError) as exc:
        raise FixError(f"the fixed {path.name} would not parse: {exc}") from exc
    except Exception as exc:  # noqa: BLE001
        raise FixError(_failure(path, exc, "would not parse when fixed")) from exc


def _libcst_parses(code: str) -> bool:
    try:
        cst.parse_module(code)
    except Exception:  # noqa: BLE001 - the whole text decides
        return False
    return True


def _failure(path: Path, exc: BaseException, what: str) -> str:
    """Why libcst failed on ``path``, without str() of the exception: a KeyError raised while
    unwinding a RecursionError holds a node whose repr recurses too."""
    seen: BaseException | None = exc
    for _ in range(20):
        if seen is None:
            break
        if isinstance(seen, RecursionError):
            return f"{path.name} is nested too deeply to rewrite safely"
        seen = seen.__cause__ or seen.__context__
    return f"{path.name} {what} ({type(exc).__name__})"


def edits_for(plan: FixPlan, display: dict[Path, str]) -> tuple[Edit, ...]:
    """The plan as line-range edits (for JSON and SARIF), one per changed hunk."""
    edits: list[Edit] = []
    by_file: dict[Path, list[Op]] = {}
    for op in plan.ops:
        by_file.setdefault(op.path, []).append(op)
    for path, ops in by_file.items():
        change = render(path, ops)
        old = decode(change.old)[0].splitlines(keepends=True)
        new = decode(change.new)[0].splitlines(keepends=True)
        for i1, i2, j1, j2 in changed_hunks(old, new):
            edits.append(
                Edit(display.get(path, str(path)), i1 + 1, 1, i2 + 1, 1, "".join(new[j1:j2]))
            )
    return tuple(edits)


def changed_hunks(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int, int, int]]:
    """The line ranges (old start, old end, new start, new end) where ``new`` differs from
    ``old``. The lines before the first and after the last difference are cut off before
    difflib compares what is left: a fix changes a few lines of a large file, and difflib's
    longest-match search over all of it cost more than rendering the fix."""
    lead, most = 0, min(len(old), len(new))
    while lead < most and old[lead] == new[lead]:
        lead += 1
    tail = 0
    while tail < most - lead and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    a, b = old[lead : len(old) - tail], new[lead : len(new) - tail]
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return [
        (i1 + lead, i2 + lead, j1 + lead, j2 + lead)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def combine(
    plans: Iterable[tuple[Diagnostic, FixPlan]], unsafe: bool
) -> tuple[dict[Path, list[Op]], FixOutcome]:
    """Merge plans into per-file ops. Equal ops are shared; a plan that conflicts is dropped."""
    outcome = FixOutcome()
    per_file: dict[Path, list[Op]] = {}
    taken: dict[tuple[Path, str, int], Op] = {}
    # What each guard switches off: plans that share a new parameter must wrap the same
    # statements with it, or one subclass passing it would switch off what another's
    # plan added (and it does not redo)
    guards: dict[tuple[Path, str, int], frozenset[Op]] = {}
    for diag, plan in plans:
        if plan.applicability == "unsafe" and not unsafe:
            outcome.skipped_unsafe.append(diag)
            continue
        wrapped = _wrapped_by_guard(plan.ops)
        clash = any(taken.get(op_site(op), op) != op for op in plan.ops) or any(
            guards.get(key, ops) != ops for key, ops in wrapped.items()
        )
        if clash:
            outcome.failed.append((diag, "overlaps another fix; run again to apply it"))
            continue
        for op in plan.ops:
            if op_site(op) not in taken:
                taken[op_site(op)] = op
                per_file.setdefault(op.path, []).append(op)
        guards.update(wrapped)
        outcome.applied.append(diag)
    return per_file, outcome


def _wrapped_by_guard(ops: tuple[Op, ...]) -> dict[tuple[Path, str, int], frozenset[Op]]:
    """For each parameter the plan adds, the statements it wraps under that parameter."""
    return {
        op_site(op): frozenset(
            w for w in ops if isinstance(w, WrapInIf) and w.path == op.path and w.cond == op.name
        )
        for op in ops
        if isinstance(op, AddParam)
    }


def build_changes(per_file: dict[Path, list[Op]], outcome: FixOutcome) -> None:
    for path, ops in sorted(per_file.items()):
        change = render(path, ops)
        if change.new != change.old:
            # What is written is parsed whole once more (render may parse only what changed).
            _check_parses(path, decode(change.new)[0], None)
            outcome.changes.append(change)


def check_writable(changes: Sequence[FileChange], root: Path) -> None:
    """Refuse to write outside the project root or through a link that leaves it."""
    real_root = root.resolve()
    for ch in changes:
        real = ch.path.resolve()
        if real != real_root and real_root not in real.parents:
            raise FixError(f"refusing to write {ch.path}: it resolves outside {real_root}")


def _refusal(path: Path) -> str | None:
    """Why ``path`` must not be rewritten, or None. A file with no write bit is read-only
    for everyone, root included (root could write it, but its owner said not to, as
    ``chmod 444`` says); for others, what the system allows of the file and its folder."""
    target = path.resolve()
    try:
        st = target.stat()
    except OSError as exc:
        return f"cannot read its permissions ({exc.strerror or exc})"
    if not stat.S_IMODE(st.st_mode) & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return f"it is read-only (mode {stat.S_IMODE(st.st_mode):04o})"
    if _is_root():
        return None
    if not os.access(target, os.W_OK):
        return "it is not writable by this user"
    if not os.access(target.parent, os.W_OK | os.X_OK):
        return f"its folder {target.parent} is not writable (the new content goes in a temp file)"
    if st.st_uid != os.geteuid():
        return f"it belongs to another user (uid {st.st_uid}), whom a rewrite would not keep"
    if st.st_gid not in {os.getegid(), *os.getgroups()}:
        return f"its group (gid {st.st_gid}) is not one of this user's, and would not be kept"
    return None


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def check_permissions(changes: Sequence[FileChange]) -> None:
    """Raise FixError, naming every file, when any of ``changes`` cannot be written as it
    is (mode, owner and group kept): then nothing is written."""
    refused = [(ch.path, why) for ch in changes if (why := _refusal(ch.path)) is not None]
    if refused:
        detail = "; ".join(f"refusing to write {p}: {why}" for p, why in refused)
        raise FixError(detail)


def _keep_owner(name: str, st: os.stat_result) -> None:
    """Give the temp file the target's owner and group (only root can give a file away)."""
    if not hasattr(os, "chown"):  # pragma: no cover - Windows
        return
    if (st.st_uid, st.st_gid) == (os.geteuid(), os.getegid()):
        return
    os.chown(name, st.st_uid if _is_root() else -1, st.st_gid)


def write_all(changes: Sequence[FileChange]) -> None:
    """Write every file or none: all temp files first, then os.replace each. Each file
    keeps its mode, owner and group; a read-only file stops it before anything is written.

    If a replace fails midway, the files already replaced are restored from memory, so
    each file is either old or new, never truncated.
    """
    check_permissions(changes)
    temps: list[tuple[FileChange, Path, Path]] = []
    try:
        for ch in changes:
            target = ch.path.resolve()
            st = target.stat()
            fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
            temps.append((ch, target, Path(name)))
            with os.fdopen(fd, "wb") as fh:
                fh.write(ch.new)
            _keep_owner(name, st)
            os.chmod(name, stat.S_IMODE(st.st_mode))  # after chown, which can clear setuid
    except BaseException:
        for _, _, temp in temps:
            temp.unlink(missing_ok=True)
        raise
    done: list[tuple[FileChange, Path]] = []
    try:
        for ch, target, temp in temps:
            os.replace(temp, target)
            done.append((ch, target))
    except BaseException:
        for _, _, temp in temps:
            temp.unlink(missing_ok=True)
        for ch, target in done:
            _restore(target, ch.old)
        raise


def _restore(target: Path, data: bytes) -> None:
    st = target.stat()
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".bak")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    _keep_owner(tmp, st)
    os.chmod(tmp, stat.S_IMODE(st.st_mode))
    os.replace(tmp, target)
