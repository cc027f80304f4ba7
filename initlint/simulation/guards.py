"""Guards: how the conditions around an effect are decided in a frame. ``eval_cond`` is the
three-valued evaluation (true, false, undecided); an undecided guard is described by what it
assumes of the constructed class's arguments (``assumptions``) and by a literal that keys it
across frames (``literal``, a state key for a test of ``self`` or of a getter's result); a
guard on an ``__init__`` parameter is a flag (``flag_of``)."""

from __future__ import annotations

import re

from initlint.facts.expressions import test_of
from initlint.facts.model import BodyError, Cond, Expr
from initlint.index.records import Module
from initlint.simulation.assumptions import Assumption, membership
from initlint.simulation.events import EventLog
from initlint.simulation.folding import ORDERS, UNFOLDED, compare, fold
from initlint.simulation.records import SHARED_KEY, WORLD_KEY, FlagRef
from initlint.simulation.run_state import Frame
from initlint.simulation.torch_knowledge import IO_CALLS
from initlint.simulation.values import FALSE, MAYBE, TRUE, UNKNOWN, Val, const


class GuardEval(EventLog):
    """Deciding the guards of an effect, and describing the undecided ones."""

    # -- guards ----------------------------------------------------------------------------
    def eval_cond(self, frame: Frame, cond: Cond) -> tuple[str, Val]:
        """Three-valued evaluation; also returns the deciding value (for its origin)."""
        op = cond.op
        if op == "const":
            return (TRUE if cond.value else FALSE), const(cond.value)
        if op in ("name", "selfattr") or (op == "unknown" and is_dotted(cond.name)):
            if op == "unknown":
                v: Val | None = self.dotted_value(frame, cond.name)
            elif op == "name":
                v = frame.call.env.get(cond.name)
            else:
                v = self._self_value(frame, cond.name)
            if v is None or v.kind != "const":
                return MAYBE, UNKNOWN
            return (TRUE if v.value else FALSE), v
        if op == "hasattr":
            return self.hasattr_truth(cond.name), UNKNOWN
        if op == "isinstance" and cond.args and isinstance(cond.value, str):
            # (``isinstance(layer, nn.Module)`` where ``layer`` holds None: false)
            tested = self._operand(frame, cond.args[0])
            if tested is None or tested.value is not None:
                return MAYBE, UNKNOWN
            truth = self.simulator.cost.none_isinstance(frame.call.fn.module, cond.value)
            return (MAYBE, UNKNOWN) if truth is None else (FALSE, tested)
        if op in ORDERS or op == "arith":
            return self._folded(frame, cond)
        if op == "not":
            r, v = self.eval_cond(frame, cond.args[0])
            return {TRUE: FALSE, FALSE: TRUE}.get(r, MAYBE), v
        if op in ("and", "or"):
            decisive = FALSE if op == "and" else TRUE
            result = TRUE if op == "and" else FALSE
            last = UNKNOWN
            for c in cond.args:
                r, v = self.eval_cond(frame, c)
                if r == decisive:
                    return r, v
                if r == MAYBE:
                    result = MAYBE
                last = v
            return result, last
        if op in ("is", "isnot", "eq", "ne"):
            left = self._operand(frame, cond.args[0])
            right = self._operand(frame, cond.args[1])
            if left is None or right is None:
                return MAYBE, UNKNOWN
            same = compare(op, left.value, right.value)
            if same is None:
                return MAYBE, UNKNOWN
            return (TRUE if same else FALSE), left if left.origin else right
        return MAYBE, UNKNOWN

    def _folded(self, frame: Frame, cond: Cond) -> tuple[str, Val]:
        """An ordering test (``n - k <= 0``), or arithmetic tested for truth, over operands
        the frame knows: decided as Python would; undecided otherwise."""
        if cond.op == "arith":
            value = self._fold(frame, cond)
            if value is UNFOLDED:
                return MAYBE, UNKNOWN
            return (TRUE if value else FALSE), UNKNOWN
        if len(cond.args) != 2:
            return MAYBE, UNKNOWN
        left, right = (self._symbolic(frame, c) for c in cond.args)
        if left is not None and right is not None and left.sym == right.sym:
            # (``seq_len > self.max_positions`` where both hold the one argument the
            # construction was given: a value against itself)
            return (TRUE if cond.op in ("le", "ge") else FALSE), UNKNOWN
        decided = compare(cond.op, *(self._fold(frame, c) for c in cond.args))
        if decided is None:
            return MAYBE, UNKNOWN
        return (TRUE if decided else FALSE), UNKNOWN

    def _fold(self, frame: Frame, cond: Cond) -> object:
        def lookup(c: Cond) -> object:
            v = self._operand(frame, c)
            return UNFOLDED if v is None else v.value

        return fold(cond, lookup)

    def assumptions(self, frame: Frame, cond: Cond, holds: bool) -> tuple[Assumption, ...]:
        """What an unknown guard assumes of the construction's arguments: each test of a
        single argument that must come out ``holds`` for the guarded work to run."""
        op = cond.op
        if op == "not":
            return self.assumptions(frame, cond.args[0], not holds)
        if (op == "and" and holds) or (op == "or" and not holds):
            # every part must hold (and), or every part must fail (not (a or b))
            return tuple(a for c in cond.args for a in self.assumptions(frame, c, holds))
        if op in ("or", "and") and cond.args:
            # one part holds: ``x == a or x == b`` (``x in (a, b)``), or ``not (x != a and
            # x != b)``: the argument is among the values
            parts = [self.assumptions(frame, c, holds) for c in cond.args]
            if all(len(p) == 1 and p[0][2] for p in parts):
                syms = {p[0][0] for p in parts}
                if len(syms) == 1 and all(p[0][1] != "truthy" for p in parts):
                    return ((syms.pop(), membership([p[0][1] for p in parts]), True),)
            return ()
        if op in ("name", "selfattr", "unknown"):
            v = self._symbolic(frame, cond)
            return ((v.sym, "truthy", holds),) if v is not None else ()
        if op in ("is", "isnot", "eq", "ne") and len(cond.args) == 2:
            left, right = cond.args
            if left.op == "const":
                left, right = right, left
            if right.op != "const":
                return ()
            v = self._symbolic(frame, left)
            if v is None:
                return ()
            return ((v.sym, repr(right.value), holds == (op in ("is", "eq"))),)
        return ()

    def _symbolic(self, frame: Frame, cond: Cond) -> Val | None:
        if cond.op == "name":
            v = frame.call.env.get(cond.name)
        elif cond.op == "selfattr":
            v = self.self_attrs.get(cond.name)
        elif cond.op == "unknown" and is_dotted(cond.name):
            v = self.dotted_value(frame, cond.name)
        else:
            return None
        return v if v is not None and v.kind == "unknown" and v.sym else None

    def _operand(self, frame: Frame, cond: Cond) -> Val | None:
        if cond.op == "const":
            return const(cond.value)
        if cond.op == "arith":
            value = self._fold(frame, cond)
            return None if value is UNFOLDED else const(value)  # type: ignore[arg-type]
        if cond.op == "unknown" and is_dotted(cond.name):
            found = self.dotted_value(frame, cond.name)
            return found if found.kind == "const" else None
        if cond.op in ("name", "selfattr"):
            v = (
                frame.call.env.get(cond.name)
                if cond.op == "name"
                else self._self_value(frame, cond.name)
            )
            if v is not None and v.kind == "const":
                return v
        return None

    def _self_value(self, frame: Frame, name: str) -> Val | None:
        """What ``self.<name>`` holds here: what the construction set, else the constant
        its class gives it (``class_constant``)."""
        held = self.self_attrs.get(name)
        return self.class_constant(frame, name) if held is None else held

    def literal(self, frame: Frame, cond: Cond) -> tuple[str, bool] | None:
        """The key and truth of an undecided guard (None: none to key it by)."""
        cond, positive = test_of(cond)
        if cond.op == "name":
            v = frame.call.env.get(cond.name)
            if v is not None and v.kind == "sym" and isinstance(v.value, str):
                return v.value, v.positive == positive
        key = self._state_key(frame, cond)
        if key:
            return key, positive
        if cond.op in ("name", *_TESTS, "and", "or", "isinstance", "unknown") and cond.name:
            if cond.op == "unknown" and cond.name == "loop":
                return None
            world = WORLD_KEY if self._world_test(frame, cond.name) else ""
            return f"{world}{frame.id}:{cond.name}", positive
        return None

    def _world_test(self, frame: Frame, text: str) -> bool:
        """Whether the test ``text`` reads a state outside the construction: files on disk
        or the environment (``os.path.exists(path)``, ``os.environ``), or a local holding
        what a file read gave (``meta["version"] == "0.10"`` after ``meta =
        yaml.safe_load(f)``). Such a branch is not the path every construction takes."""
        if _WORLD_PROBE.search(text):
            return True
        module = frame.call.fn.module
        if any(self._probe(module, head, 0) for head in _CALLED.findall(text)):
            return True
        names = _NAMES.findall(text)
        if _PATH_PROBE.search(text):
            if "Path(" in text or any(n in frame.paths for n in names):
                return True  # (``Path(p).exists()``, ``(root / name).is_file()``)
        return any(n in frame.world for n in names)

    def _probe(self, module: Module, name: str, depth: int) -> bool:
        """Whether calling ``name``, as written in ``module``, asks a state outside the
        construction: a probe of files or the environment under the name an import gives it
        (``osp.exists`` after ``import os.path as osp``), or a function, the project's or a
        dependency's, whose every return is such a test (``files_exist(paths)``)."""
        index = self.simulator.index
        public = index.public_name(module, name)
        if public is not None and _WORLD_PROBE.match(f"{public}("):
            return True
        target = index.resolve(module, name) if depth < _PROBE_DEPTH else None
        fn = index.function_info(target.name) if target and target.kind == "function" else None
        body = fn.facts.load() if fn is not None else None
        if fn is None or body is None or isinstance(body, BodyError):
            return False
        returns = [e.value for e in body.effects if e.kind == "return"]
        return bool(returns) and all(
            r is not None
            and any(
                n.kind == "call" and n.name and self._probe(fn.module, n.name, depth + 1)
                for n in r.nodes()
            )
            for r in returns
        )

    def makes_path(self, frame: Frame, value: Expr | None) -> bool:
        """Whether ``value`` is a path: ``Path(d)``, ``os.path.join(d, f)``, or a path
        joined on (``root / name``)."""
        if value is None:
            return False
        if value.kind == "name":
            return value.name in frame.paths
        if value.kind == "op" and value.name == "/" and value.children:
            return self.makes_path(frame, value.children[0])
        if value.kind == "call" and value.name:
            public = self.simulator.index.public_name(frame.call.fn.module, value.name)
            return (public or value.name) in _PATH_MAKERS
        return False

    def reads_world(self, frame: Frame, value: Expr | None) -> bool:
        """Whether ``value`` is what a file read gave (``yaml.safe_load(f)``, ``json.load``,
        ``torch.load(p)["state"]``, ``open(path).read()``), directly or through a local
        that holds such a read: the call at the head of its chain of parts and calls."""
        cur = value
        while cur is not None:
            if cur.kind == "name":
                return cur.name in frame.world
            if cur.kind == "call" and cur.name:
                public = self.simulator.index.public_name(frame.call.fn.module, cur.name)
                if (public or cur.name) in IO_CALLS:
                    return True
            cur = cur.receiver
        return False

    def _state_key(self, frame: Frame, cond: Cond) -> str:
        """A key for a test that two frames share when it gives them the same answer, so that
        an ancestor's ``if`` and the subclass's ``if`` of the same text are one undecided
        condition; "" for any other test. The test may read only constants, ``self``
        attributes (``self.pp_group.is_last_rank``, ``self.n == 1 and self.tied``),
        attributes of what an argument-free function of the module returns
        (``get_pp_group().is_last_rank``) and names the function's module binds at its top
        level (``if _init_weights:``, ``if _is_cuda:``): no local, no other call. The key is
        the text, with

        - the function each call names, resolved (two modules' ``get_pp_group`` must be the
          same function): a call repeated with the same text is assumed to give the same
          answer within one construction;
        - the module of each module-level name it reads (one name of one module has one value
          at a time, in every frame);
        - the write count of each ``self`` attribute it reads and of the whole object
          (``note_writes``; a store of what the attribute already held from the same
          getter is no write, ``EventLog.emit``)."""
        facts = frame.call.fn.facts
        if facts.is_static or facts.is_classmethod:
            return ""
        known = self.simulator.state_tests.get(id(cond))
        if known is None or known[0] is not cond:
            roots: set[str] = set()
            getters: set[str] = set()
            names: set[str] = set()
            text = f"self.{cond.name}" if cond.op == "selfattr" else cond.name
            if not _test_reads(cond, roots, getters, names) or not text or len(text) >= 80:
                roots.clear()  # (a condition's text is cut at 80 characters)
                getters.clear()
                names.clear()
            known = (cond, text, tuple(sorted(roots)), tuple(sorted(getters)), tuple(sorted(names)))
            self.simulator.state_tests[id(cond)] = known
        _, text, sorted_roots, getters_read, names_read = known
        if not sorted_roots and not getters_read and not names_read:
            return ""
        called = ""
        for name in getters_read:
            target = self.getter_of(frame, name)
            if not target:
                return ""
            called += f"{name}={target};"
        module = frame.call.fn.module
        for name in names_read:
            if not self._module_level(frame, name):
                return ""
            called += f"{name}@{module.name};"
        if not sorted_roots:
            return f"{SHARED_KEY}{text}|{called}"
        marks = ",".join(f"{r}:{self.attr_writes.get(r, 0)}" for r in sorted_roots)
        return f"self|{text}|{called}|{marks}|{self.epoch}"

    def _module_level(self, frame: Frame, name: str) -> bool:
        """Whether ``name``, read in ``frame``'s function, is a name its module binds at the
        top level by assignment, and the function binds no local or parameter of that name."""
        if name not in frame.call.fn.module.facts.names:
            return False
        if any(p.name == name for p in frame.body.params):
            return False
        return not any(e.kind == "local" and e.name == name for e in frame.body.effects)

    def flag_of(self, frame: Frame, cond: Cond) -> FlagRef | None:
        if frame.call.fn.facts.name != "__init__":
            return None
        params = {p.name for p in frame.body.params} - frame.loop_bound
        if cond.op == "name" and cond.name in params:
            return FlagRef(frame.call.fn, cond.name, False)
        if cond.op == "not" and cond.args[0].op == "name" and cond.args[0].name in params:
            return FlagRef(frame.call.fn, cond.args[0].name, True)
        return None


def is_dotted(text: str) -> bool:
    """``a.b.c``: a plain dotted name (an attribute read a guard can look up)."""
    return "." in text and all(part.isidentifier() for part in text.split("."))


def _test_reads(cond: Cond, roots: set[str], getters: set[str], names: set[str]) -> bool:
    """Whether ``cond`` tests only constants, ``self`` attributes, attributes of what an
    argument-free call of a dotted name returns (``get_pp_group().is_last_rank``; no other
    call) and plain names. ``roots`` gets the attributes it reads, ``getters`` the called
    names, ``names`` the plain names (the caller decides which are the module's)."""
    if cond.op == "const":
        return True
    if cond.op == "name" and cond.name.isidentifier():
        names.add(cond.name)
        return True
    if cond.op == "selfattr":
        roots.add(cond.name)
        return True
    if cond.op == "unknown":
        head, _, rest = cond.name.partition(".")
        if head == "self" and is_dotted(cond.name):
            roots.add(rest.partition(".")[0])
            return True
        called = _GETTER_TEST.fullmatch(cond.name)
        if called is None:
            return False
        getters.add(called.group(1))
        return True
    if cond.op in ("not", "and", "or", *_TESTS, "arith") and cond.args:
        return all(_test_reads(c, roots, getters, names) for c in cond.args)
    return False


# Tests of two operands (keyed by their text where undecided).
_TESTS = ("is", "isnot", "eq", "ne", *ORDERS)

# ``get_pp_group().is_last_rank``: a dotted name called without arguments, then attributes.
_GETTER_TEST = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(\)(?:\.[A-Za-z_]\w*)*")

# Tests of files on disk or of the environment (``os.path.exists(p)``, ``Path(p).is_file()``,
# ``os.environ.get("X")``): a state outside the construction.
_WORLD_PROBE = re.compile(
    r"\bos\.path\.(?:exists|isfile|isdir|islink|lexists|getsize)\("
    r"|\bos\.(?:listdir|scandir|access|getenv)\(|\bos\.environ\b|\bglob\.glob\("
)
# A path asked whether it exists (the receiver must be a path: ``Path(p)``, a path local).
_PATH_PROBE = re.compile(r"\.(?:exists|is_file|is_dir)\(\)")
_PATH_MAKERS = frozenset(
    "pathlib.Path pathlib.PurePath pathlib.PosixPath Path os.path.join os.path.abspath".split()
)
_NAMES = re.compile(r"[A-Za-z_]\w*")
# The dotted names a test calls (``osp.exists(p)``, ``files_exist(paths)``).
_CALLED = re.compile(r"([A-Za-z_][\w.]*)\(")
# How many functions deep a test is followed to the probe it returns.
_PROBE_DEPTH = 3


def cond_inputs(cond: Cond, names: set[str], attrs: set[str]) -> None:
    """The locals (``names``) and ``self`` attributes (``attrs``) a stable guard reads."""
    if cond.op == "name":
        names.add(cond.name)
    elif cond.op == "selfattr":
        attrs.add(cond.name)
    elif cond.op == "unknown" and is_dotted(cond.name):
        head, _, rest = cond.name.partition(".")
        if head == "self":
            attrs.add(rest.partition(".")[0])
        else:
            names.add(head)
    for c in cond.args:
        cond_inputs(c, names, attrs)
