"""Every rule, with its documentation and inline examples.

Numbering policy: codes are stable and never reused. IL0xx are init-effect rules,
IL9xx are internal diagnostics about files initlint could not analyse.
"""

from __future__ import annotations

from initlint.rules.base import Rule, register
from initlint.simulation.engine import MAX_DEPTH, MAX_FRAMES

_BASE = """
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
"""


@register
class RedundantBufferRegistration(Rule):
    code = "IL001"
    name = "redundant-buffer-registration"
    summary = "A subclass registers a buffer or parameter its ancestors already registered."
    fixable = True
    docs = {
        "What it does": """
Checks for a class that calls `super().__init__()` and then registers (with
`register_buffer`, `register_parameter` or `self.x = nn.Parameter(...)`) a buffer or
parameter that the ancestor `__init__` chain has already registered. The parameters a
torch module registers count too: a subclass of `nn.Linear` that deletes `self.weight` and
registers a buffer of that name (or assigns a new `nn.Parameter`) discards the tensor
`nn.Linear.__init__` allocated; a value computed from the current one
(`nn.Parameter(self.weight.data.half())`) is a conversion, not a repeat.

Severity: `error` when the discarded tensor was computed or allocated (a tensor factory or
math op, a project helper that makes one); `warning` when it holds at most one element
(`torch.tensor(1.0)`, `torch.zeros(1)`), holds none (`torch.empty(0)`, a shape whose size
argument the super call passes as 0, like the `nn.Linear(0, 0)` base of torch's `Lazy*`
modules, an `UninitializedParameter`), or is a value passed in, which is only registered.
""",
        "Why is this bad": """
The ancestor computed and stored the tensor, and the subclass throws it away and computes it
again: the init time doubles for that tensor and the peak memory holds both copies. In vLLM's
DeepSeek V4 rotary embedding this cost a second 256 MiB cos/sin cache on every process start.
""",
        "Example": """
```python
class Child(Base):
    def __init__(self, n=8):
        super().__init__(n)
        self.register_buffer("cache", self._build(), persistent=False)
```
""",
        "Use instead": """
```python
class Child(Base):
    def __init__(self, n=8):
        super().__init__(n, init_cache=False)
        self.register_buffer("cache", self._build(), persistent=False)
```
""",
        "Fix safety": """
When an ancestor guards the registration with a flag that reaches the subclass's super call,
the fix passes `flag=False` (and pops the flag from `**kwargs` first), or `flag=not <cond>`
when the subclass redoes the work only under a condition on its own parameters. It is offered
only when the subclass redoes everything the flag switches off and nothing reads the switched-off
attribute before the redo; otherwise there is no fix, and the help line says why. When an
intermediate class swallows the flag, or no flag exists, the fix threads or introduces one
across files under the same conditions; that changes signatures and is unsafe, and it is
offered only for a heavy repeat (an `error`): a light one (a `warning`, such as a one-element
tensor) is not worth a new public constructor parameter, and its help line says so. Switching
off an existing flag and deleting an identical redo add no parameter and are offered for light
repeats too. No fix changes what a constructed object ends with.
""",
    }
    VALID = (
        _BASE
        + """

class Child(Base):
    def __init__(self, n=8):
        super().__init__(n, init_cache=False)
        self.register_buffer("cache", self._build(), persistent=False)
""",
        _BASE
        + """

class Child(Base):
    def __init__(self, n=8):
        super().__init__(n)
        self.register_buffer("other", torch.zeros(n))
""",
    )
    INVALID = (
        _BASE
        + """

class Child(Base):
    def __init__(self, n=8):
        super().__init__(n)
        self.register_buffer("cache", self._build(), persistent=False)
""",
    )


@register
class RedundantInitCall(Rule):
    code = "IL002"
    name = "redundant-init-call"
    summary = "A subclass calls an expensive method its ancestors' __init__ already called."
    fixable = True
    docs = {
        "What it does": """
Checks for a call `self.method(args)` after `super().__init__()` where the ancestor chain
already called the same function (resolved through the class's MRO, so an overridden method
counts as the same call) with equal argument expressions, and the function does expensive
work (tensor factories, module construction, file I/O, or project helpers that do these).
A call whose result only feeds a registration reported by IL001 is reported once, as IL001.
A call to a memoised function (`functools.cache`, `lru_cache`, or one that returns an entry
of a module-level cache dict, directly or through a helper that looks it up) builds nothing
the second time and is never reported.

Severity: `error` when the method does heavy work (it allocates tensors, builds modules that
own parameters, reads files or checkpoints, including work it only keeps in a local);
`warning` when it only builds light objects (parameterless modules, plain objects).
""",
        "Why is this bad": """
The work runs twice on every construction. Different arguments are a different computation
and are not reported.
""",
        "Example": """
```python
class Child(Base):
    def __init__(self):
        super().__init__()
        self._build_tables()
```
""",
        "Use instead": """
```python
class Child(Base):
    def __init__(self):
        super().__init__()
```
""",
        "Fix safety": """
Deleting a call that repeats the ancestor's call exactly is safe when its result is unused and
nothing it reads (through the methods it calls too) was written between the two calls. After
`self.max_pos *= 4` the second call is a different computation: a flag that switches the first
one off is offered instead (unsafe: it changes a signature), or no fix. A new flag is offered
only when the repeated call is heavy work (an `error`); for a light one there is no fix.
""",
    }
    VALID = (
        """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.small = self._make_table(4)

    def _make_table(self, n):
        return torch.zeros(n, n)


class Child(Base):
    def __init__(self):
        super().__init__()
        self.large = self._make_table(8)
""",
    )
    INVALID = (
        """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self._build_tables()

    def _build_tables(self):
        torch.manual_seed(0)
        return torch.randn(512, 512)


class Child(Base):
    def __init__(self):
        super().__init__()
        self._build_tables()
""",
    )


@register
class OverwrittenInitAttribute(Rule):
    code = "IL003"
    name = "overwritten-init-attribute"
    summary = "A subclass rebuilds an attribute its ancestors already built expensively."
    fixable = True
    docs = {
        "What it does": """
Checks for `self.attr = <expensive>` after `super().__init__()` when the ancestor chain
already assigned an expensive value (a tensor, a submodule, loaded data) to the same attribute.
Cheap values (constants, names, attribute reads, `None`) are never reported. A container
filled in the same method (`self.layers = nn.ModuleList()` then `self.layers.append(...)` in
a loop, `self.heads["x"] = ...`) costs what went into it.

Severity follows the ancestor's build that is thrown away:
- `error` (heavy): a tensor; a module that owns parameters or buffers (`nn.Linear`,
  `nn.LayerNorm`, a project module whose construction is heavy, a `ModuleList` of such);
  file I/O; `from_pretrained`/`from_config`/`torch.load`-style loading; `copy.deepcopy` of
  any of these.
- `warning` (light): an object without tensors: a parameterless torch module (`nn.GELU`,
  `nn.SiLU`, `nn.Dropout`, `nn.Identity`, pooling, padding), a project object whose
  `__init__` only stores scalars (a sampler, a matcher), a tensor of at most one element
  (an empty one too: a size of 0, an `UninitializedParameter`), a copy of an object
  initlint cannot see into.
A memoised factory (`functools.cache`, `lru_cache`, a module-level cache dict, also one
read through a lookup helper) returns the object it built before: no rebuild, no finding.
A `del self.x` on the way to the rebuild proves that the ancestor's branch building `x`
ran: an ancestor build that branch excludes never happened, and is not reported.
""",
        "Why is this bad": """
The ancestor's object is built and immediately discarded: a submodule's weights are allocated
and initialised twice, a data file is read twice.
""",
        "Example": """
```python
class Child(Base):
    def __init__(self, dim):
        super().__init__(dim)
        self.proj = nn.Linear(dim, dim)
```
""",
        "Use instead": """
```python
class Child(Base):
    def __init__(self, dim):
        super().__init__(dim, build_proj=False)
        self.proj = nn.Linear(dim, dim)
```
""",
        "Fix safety": """
Same as IL001: switching off an existing flag is safe when the subclass redoes all the work
that flag guards; threading or introducing a flag changes signatures and is unsafe. Neither is
offered when a reader of the attribute (a later ancestor statement, a helper, or the subclass
before its rebuild) would find it missing. A light rebuild (a `warning`: a parameterless module
such as `nn.Dropout`) gets no new constructor parameter; when it sits in the same ancestor
`__init__` as a heavy rebuild, it shares the heavy one's flag.
""",
    }
    VALID = (
        """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = None
        self.scale = 1.0


class Child(Base):
    def __init__(self, dim):
        super().__init__(dim)
        self.proj = nn.Linear(dim, dim)
        self.scale = 2.0
""",
    )
    INVALID = (
        """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)


class Child(Base):
    def __init__(self, dim):
        super().__init__(dim)
        self.proj = nn.Linear(dim, 2 * dim)
""",
    )


@register
class DisabledSetupNotReplaced(Rule):
    code = "IL004"
    name = "disabled-setup-not-replaced"
    summary = "A subclass switches off ancestor setup with a flag and never performs it itself."
    docs = {
        "What it does": """
Checks for a super call that passes a flag (e.g. `init_cache=False`) which switches off an
ancestor's buffer registration or expensive attribute setup, when nothing in the class's
construction performs that setup instead.

An attribute that every reader in the class's MRO reads only through `getattr(self, "x",
default)` or `hasattr(self, "x")` is optional: switching it off leaves nothing missing, and
is not reported.

Severity: `error` when the missing setup is heavy work (a buffer, a module with parameters),
`warning` when it is light (see IL003 for what counts).
""",
        "Why is this bad": """
The object is left without a buffer or attribute its methods expect: the first forward pass
fails with an AttributeError, or silently uses a stale value.
""",
        "Example": """
```python
class Child(Base):
    def __init__(self):
        super().__init__(init_cache=False)
```
""",
        "Use instead": """
```python
class Child(Base):
    def __init__(self):
        super().__init__(init_cache=False)
        self.register_buffer("cache", self._build(), persistent=False)
```
""",
        "Fix safety": """
No automatic fix: only the author knows whether the flag or the missing setup is the mistake.
""",
    }
    VALID = (
        _BASE
        + """

class Child(Base):
    def __init__(self):
        super().__init__(init_cache=False)
        self.register_buffer("cache", torch.zeros(8, 4), persistent=False)
""",
    )
    INVALID = (
        _BASE
        + """

class Child(Base):
    def __init__(self):
        super().__init__(init_cache=False)
""",
    )


_NO_FIX = "No automatic fix."


@register
class SyntaxErrorRule(Rule):
    code = "IL900"
    name = "syntax-error"
    severity = "error"
    summary = "A file cannot be parsed; it is skipped and the run goes on."
    docs = {
        "What it does": (
            "Reports a file that Python cannot parse (including Python 2 code): at module or "
            "class level, in a `def` or `class` header, in an `__init__`, or in another "
            "function body that a constructor reaches. The fact pass skips the bodies no "
            "constructor reaches (DESIGN §8), so a syntax error in, say, a `forward` is left "
            "to your compiler or to ruff."
        ),
        "Why is this bad": "initlint cannot see the classes in it, so bases may go unresolved.",
        "Example": "```python\nclass Broken(:\n    pass\n```",
        "Use instead": "```python\nclass Fixed:\n    pass\n```",
        "Fix safety": _NO_FIX + " The fixer never touches a file with a syntax error.",
    }


@register
class UnreadableFile(Rule):
    code = "IL901"
    name = "unreadable-file"
    severity = "error"
    summary = "A file cannot be read: bad encoding, permissions, or not a regular file."
    docs = {
        "What it does": "Reports a file that cannot be read or decoded.",
        "Why is this bad": "initlint cannot analyse it; classes defined there stay unresolved.",
        "Example": "A file with Latin-1 bytes and no `# -*- coding: latin-1 -*-` cookie.",
        "Use instead": "Save the file as UTF-8, or declare its encoding with a coding cookie.",
        "Fix safety": _NO_FIX,
    }


@register
class InternalError(Rule):
    code = "IL902"
    name = "internal-error"
    severity = "error"
    summary = "initlint itself failed on one file; the run goes on and exits 2."
    docs = {
        "What it does": f"""
Reports an exception raised inside initlint while analysing a file, and a class whose
analysis stopped at a limit: an `__init__` chain deeper than {MAX_DEPTH} calls, or more
than {MAX_FRAMES:,} calls to simulate for one construction.

It is always shown: `select`, `ignore`, `per-file-ignores` and suppression comments never
hide it, because the run exits 2 whenever there is one.
""",
        "Why is this bad": (
            "It is a bug in initlint, or a limit reached: the file or class was not fully analysed."
        ),
        "Example": "Any file that triggers the bug; the message gives the exception.",
        "Use instead": "Please report it with the file, or exclude the file meanwhile.",
        "Fix safety": _NO_FIX,
    }
