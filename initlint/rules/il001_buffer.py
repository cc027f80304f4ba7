"""IL001 redundant-buffer-registration: a buffer or parameter registered again."""

from __future__ import annotations

from initlint.rules.base import ALL_FIXES, STORAGE, Finding, RepeatFinding, RepeatRule, register
from initlint.rules.examples import BASE


@register
class RedundantBufferRegistration(RepeatRule):
    code = "IL001"
    name = "redundant-buffer-registration"
    summary = "A subclass registers a buffer or parameter its ancestors already registered."
    fix_strategies = ALL_FIXES
    # A tensor registered again shows, traced, as a buffer, a parameter or an attribute set.
    runtime_repeats = STORAGE
    again, did = "registered again", "registered it"

    docs = {
        "What it does": """
Checks for a class that calls `super().__init__()` and then registers (with
`register_buffer`, `register_parameter` or `self.x = nn.Parameter(...)`) a buffer or
parameter that the ancestor `__init__` chain has already registered. The parameters a
torch module registers count too: a subclass of `nn.Linear` that deletes `self.weight` and
registers a buffer of that name (or assigns a new `nn.Parameter`) discards the tensor
`nn.Linear.__init__` allocated; a value computed from the current one
(`nn.Parameter(self.weight.data.half())`) is a conversion, not a repeat. So does a tensor
of a submodule replaced (`self.rope.table = torch.zeros(...)` after the ancestor built
`self.rope`, whose own `__init__` registered `table`); see IL003 for parts of submodules,
for an ancestor that registers it in several branches (how the discarded registration is
chosen: the subclass's branch paired with the ancestor's by the same test, else the
heaviest that may have run), and for an ancestor path that cannot
finish (its override reads an attribute the subclass sets only after `super().__init__()`:
the registration after that read never happens on that path).

A new value computed from the one it replaces is not a repeat: the ancestor's work is its
input (`inv = self.inv_freq` then `register_buffer("inv_freq", inv / factor)`), also when a
helper method reads it (`inv = self._stretched(factor)` where `_stretched` returns
`self.inv_freq / factor`, through locals and further helpers). A helper that computes the
value afresh, or only looks at the current one's device or shape, makes a repeat.

Severity: `error` when the discarded tensor was computed or allocated (a tensor factory or
math op, a project helper that makes one; a size read from an argument or attribute,
`torch.zeros(max_num_tokens)` or `torch.ones(hidden)`, is not known to be small; every size
written out as a number, read from an attribute the construction set to one (`self.width =
512`), from the reported class's own argument whose default is a number (read at that
default: what the class built from its defaults holds), or from a number the call that
built the object gives it, it is when it holds a mebibyte of
float32 numbers or more, `torch.zeros(512, 512)`, or several such tensors in one value that
together do; a table broadcast from a column and a row, `t[:, None] * f[None, :]`, holds the
product of their sizes, heavy where one is a vector of a size not known here); `warning`
when every size is written out and it holds less (`torch.zeros(64, 64)`,
`torch.arange(512)`), and when the code writes out its numbers, at most 16 of them: a
scalar (`torch.tensor(1.0)`), a literal list of numbers
(`torch.tensor([0, shard])`, also through a local `offsets = [0, shard]`: a list with a
number among its items is a vector of its length, as torch allows no ragged data; a starred
item makes the length unknown); when it holds at most one element (`torch.zeros(1)`) or none
(`torch.empty(0)`, a shape whose size argument the super call passes as 0, like the
`nn.Linear(0, 0)` base of torch's `Lazy*` modules, an `UninitializedParameter`), or is a
value passed in, which is only registered; also when it is a vector over one feature
dimension that a torch module's own `__init__` registered (a `Linear`/`Conv` bias, a norm's
scale, shift or running statistics): O(width) numbers beside the O(width^2) of a weight
matrix. Torch's registrations are read from its sources where torch is installed, from
initlint's built-in table of torch modules where it is not; both read the arguments
(`super().__init__(d, d, bias=False)` registers no bias).
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
only when the subclass redoes everything the flag switches off, nothing reads the switched-off
attribute before the redo, and the flag does nothing else (the ancestor computes no value from
it, keeps it, hands it to a method, switches other work on with it, or writes a file under
it); otherwise there is no fix, and the help line says why. When an intermediate class
swallows the flag, or no flag exists, the fix threads or introduces one across files under the
same conditions; that changes signatures and is unsafe, and it is offered only for heavy work
(also where a file or environment test makes the repeat a warning), never where the guarded
statements write a file: a light repeat (such as a one-element tensor) is not worth a new
public constructor parameter, and its help line says so. Switching off an existing flag and
deleting an identical redo (where the ancestor's registration ran on every path the redo
runs) add no parameter and are offered for light repeats too. No fix changes what a
constructed object ends with.
""",
    }
    VALID = (
        BASE
        + """

class Child(Base):
    def __init__(self, n=8):
        super().__init__(n, init_cache=False)
        self.register_buffer("cache", self._build(), persistent=False)
""",
        BASE
        + """

class Child(Base):
    def __init__(self, n=8):
        super().__init__(n)
        self.register_buffer("other", torch.zeros(n))
""",
    )
    INVALID = (
        BASE
        + """

class Child(Base):
    def __init__(self, n=8):
        super().__init__(n)
        self.register_buffer("cache", self._build(), persistent=False)
""",
    )

    def again_for(self, finding: Finding) -> str:
        # `register_parameter("bias", None)` registers nothing again: it drops the tensor.
        if isinstance(finding, RepeatFinding) and finding.event.value_const:
            return "replaced by a constant"
        return self.again
