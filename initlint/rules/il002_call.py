"""IL002 redundant-init-call: an expensive method the ancestors already called, called again."""

from __future__ import annotations

from initlint.rules.base import ALL_FIXES, RepeatRule, register


@register
class RedundantInitCall(RepeatRule):
    code = "IL002"
    name = "redundant-init-call"
    summary = "A subclass calls an expensive method its ancestors' __init__ already called."
    fix_strategies = ALL_FIXES
    runtime_repeats = frozenset({"call"})  # the method called again
    again, did = "called again", "called it"
    docs = {
        "What it does": """
Checks for a call `self.method(args)` after `super().__init__()` where the ancestor chain
already called the same function (resolved through the class's MRO, so an overridden method
counts as the same call) with equal arguments, and the function does expensive work (tensor
factories, module construction, file I/O, initialising weights in place, or project helpers
that do these). A weight-initialisation pass costs what it fills: `nn.init.xavier_uniform_(
self.weight)` what the construction built in `self.weight`; a walk over the object
(`for p in self.parameters(): ...`, `self.apply(self._init_weights)`, a function handed
`self` that initialises what it is given) the weights the construction holds. A call whose
result only feeds a registration reported by IL001 is reported once, as IL001.

Arguments are compared by value, not by their text: each call's arguments are bound to the
function's parameters (positional, keyword, or the default of one left out) in the frame the
call runs in, and compared parameter by parameter. `self._build(n, fast=False)` equals
`self._build(n)` when `fast` defaults to False. A value is known when it is a constant, the
constructed class's own argument, a global, `self.x` (by name), a local or a parameter
through the expression it was bound to (across frames), or an expression of these. The same
text can hold other values: a helper that runs once from the ancestor's `__init__` and again
from the class's loop gets other names each time, and is not reported. So a call is not
reported when a value differs, or is not known on either side: a local built in a loop or
changed in place (`names.append(x)`), a value bound under an undecided guard, a subscript
`x[i]`, a comparison. A call is reported as *possibly* called again (confidence `possible`)
when its values equal the ancestor's only if the constructed class's own arguments keep
their defaults: the base calls `self._build(4)`, the class `self._build(size)` with `size=4`
(a caller may pass another size).
A call to a memoised function (`functools.cache`, `lru_cache`, or one that returns an entry
of a module-level cache dict, directly or through a helper that looks it up) builds nothing
the second time and is never reported, nor is a call that returns at once on what the first
run set (`if self.ready: return` ... `self.ready = True`); nor is torch's own move, cast or
mode method of the module (`self.to(device)`, `self.half()`, `self.eval()`), which, called
again with the same arguments, leaves where it is what the first call moved and moves only
what was built since.

An ancestor's `__init__` that the class's own code runs a second time (`super().__init__()`
called twice, or `A.__init__(self)` then `B.__init__(self)` where both reach one base's
`__init__`) is reported at the second call, named by the ancestor's function that ran twice,
when that run stores again a costly build its first run stored: the first build is thrown
away. No fix is offered: which call's arguments the class needs is its author's choice.

Severity: `error` when the method does heavy work (it allocates tensors, builds modules that
own parameters, reads files or checkpoints, including work it only keeps in a local);
`warning` when it only builds light objects (parameterless modules, plain objects). The
work weighed is the earlier run's, which the later one throws away, with the sizes the
object's attributes hold as that run starts (`self.max_pos = 64`, then `torch.arange(
self.max_pos)` in the method: 64 numbers; set to 8192 for the first run and to 64 before
the second, the first run's 8192 count).
""",
        "Why is this bad": """
The work runs twice on every construction. Different arguments are a different computation
(the second run's result is new work) and are not reported.
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
one off is offered instead (unsafe: it changes a signature), or no fix; so too after a
parameter or module is made between two passes that walk the object (`for p in
self.parameters(): ...`): the second fills it, and deleting it would leave it unfilled. A
new flag is offered
only when the repeated call is heavy work (an `error`); for a light one there is no fix.
Deleting a repeated initialisation pass is unsafe: the weights keep the first pass's values,
which were drawn earlier in the random stream, so a seeded run builds other numbers.
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
