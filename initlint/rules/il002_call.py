"""IL002 redundant-init-call: an expensive method the ancestors already called, called again."""

from __future__ import annotations

from initlint.rules.base import RepeatRule, register


@register
class RedundantInitCall(RepeatRule):
    code = "IL002"
    name = "redundant-init-call"
    summary = "A subclass calls an expensive method its ancestors' __init__ already called."
    fixable = True
    again, did = "called again", "called it"
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
