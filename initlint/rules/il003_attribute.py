"""IL003 overwritten-init-attribute: an attribute the ancestors built expensively, rebuilt."""

from __future__ import annotations

from initlint.rules.base import ALL_FIXES, STORAGE, RepeatRule, register


@register
class OverwrittenInitAttribute(RepeatRule):
    code = "IL003"
    name = "overwritten-init-attribute"
    summary = "A subclass rebuilds an attribute its ancestors already built expensively."
    fix_strategies = ALL_FIXES
    # A rebuilt attribute may hold a tensor: traced, a buffer or parameter as well.
    runtime_repeats = STORAGE
    again, did = "rebuilt", "built it"
    docs = {
        "What it does": """
Checks for `self.attr = <expensive>` after `super().__init__()` when the ancestor chain
already assigned an expensive value (a tensor, a submodule, loaded data) to the same attribute.
Cheap values (constants, names, attribute reads, `None`) are never reported. A container
filled in the same method (`self.layers = nn.ModuleList()` then `self.layers.append(...)` in
a loop, `self.heads["x"] = ...`) costs what went into it. A build the ancestors themselves
then set to a constant on every path (`self.x = None` later in their `__init__`) is gone
before the class's rebuild, which replaces the constant: not reported. An assignment to a
property runs its setter (`@x.setter`), which is followed as the method it is: what it
stores is what counts.

Severity follows the ancestor's build that is thrown away:
- `error` (heavy): a tensor of two or more dimensions, or of one whose size is known and
  larger than one, where an argument gives a size (every size written out as a number: a
  mebibyte of float32 numbers or more; so too a size the reported class's own argument
  gives whose default is a number, `hidden=128`, read at that default: what the class
  built from its defaults holds, though a class that builds it larger throws more away;
  and a number the call building a held object gives it, `self.head = Head(hidden, 8)`);
  a module that owns a matrix-sized parameter or buffer
  (`nn.Linear`, `nn.Embedding`, a project module whose construction is heavy, a
  `ModuleList` of such); file I/O; `from_pretrained`/`from_config`/`torch.load`-style
  loading; `copy.deepcopy` of any of these.
- `warning` (light): an object without tensors: a parameterless torch module (`nn.GELU`,
  `nn.SiLU`, `nn.Dropout`, `nn.Identity`, pooling, padding), a torch norm layer, which owns
  only vectors (`nn.LayerNorm`, `nn.BatchNorm1d`, `nn.GroupNorm`), a torch module whose keyword
  arguments switch off every tensor it would register (`nn.LayerNorm(d,
  elementwise_affine=False)`, `nn.BatchNorm1d(d, affine=False, track_running_stats=False)`;
  also a project class built with a keyword passed as `False`, whose construction is then
  simulated with the call's arguments and owns no tensor), a project object whose
  `__init__` only stores scalars (a sampler, a matcher), a tensor whose numbers the code
  writes out, at most 16 (`torch.tensor([0, shard])`; see IL001), one whose every size the
  code writes out as a number, or a torch module whose weight is such, under a mebibyte
  (`torch.zeros(64, 64)`, `nn.Conv2d(3, 64, 7)`, also `nn.Conv2d(3, self.inplanes, 7)`
  after `self.inplanes = 64`: a size read from an attribute set to a number is written
  out; several such builds in one value add up, `nn.Sequential(nn.Linear(192, 768),
  nn.GELU(), nn.Linear(768, 192))` holding more than a mebibyte is heavy, and the items of
  a comprehension count as often as a `range` written out runs: over another count, the
  total is unknown), one of at most one element, or none (a size of 0, an
  `UninitializedParameter`), a copy of an object initlint cannot see into. A
  module that keeps one tensor stays heavy (`nn.Linear(a, b, bias=False)` still owns its
  weight).
- `warning` (unknown): a tensor of one dimension whose size is not known
  (`torch.ones(hidden)`: a bias or a norm's weight, or a table of positions), or a few
  such vectors of a width an argument gives (`torch.randn(dim, 2)`, `nn.Linear(width, 2)`:
  the other sizes written out, at most 16 numbers together), or a project
  module whose heaviest part is one; what initlint cannot follow. A module whose weights a
  method of an object it holds creates (`self.quant_method.create_weights(self, ...)`) costs
  what that method builds.
A memoised factory (`functools.cache`, `lru_cache`, a module-level cache dict, also one
read through a lookup helper) asked again with equal arguments returns the object it built
before: no rebuild, no finding. So does a plain wrapper whose every `return` hands back such
a factory's object (`get_rope_wrapper(...)` returning `get_rope(...)`): its arguments are
mapped through to the factory's. Equal is decided per parameter of the factory, after
binding each call's arguments (an omitted one takes its default, so `f(d)` equals `f(d,
cfg=None)` when `cfg` defaults to None): the same constants, the same argument of the
constructed class, the same expression of them, and nothing they read changed since the
earlier build: no `self` attribute they read written, no name they read rebound or changed
in place (`scaling["factor"] = 4.0`, `scaling.update(...)`, `n += 1`). With changed
arguments the factory builds another object (the first stays in its cache), which is
reported at the cost of the factory's body. It is `possibly` when the change sits under an
undecided guard, when the difference rests on what the caller passes (the class's own
argument against a constant or another argument), or when a wrapper picks its factory at
run time (`make = fast if flag else plain`).
A part of a submodule counts too: `self.attn.qkv = nn.Linear(...)` after the ancestor chain
stored in `self.attn` an object whose own construction built `qkv` (simulated like any
class) throws that build away. It is reported only when `self.attn` was built during
`super().__init__()` and the new value is costly and not made from the old one (a wrapper
`Quantized(self.attn.qkv)` keeps it); its severity is that of the discarded part. No fix is
offered: skipping the part would need a new parameter on the submodule's class. Likewise
`self.attn.__init__(...)` on the object the ancestors built sets the whole object up again
(every tensor it owns is built twice): reported at the cost of that construction, no fix.
An item of a list the ancestor chain built counts too: `self.convs[i] = nn.Conv2d(...)`
after `self.convs = nn.Sequential(*convs)` (torch's `ModuleList`, `Sequential` and
`ParameterList`, or a list display) replaces the item at that index. Rated by the lower of
the list's cost and the new item's (the item thrown away is not shown apart from its
list; one of a costly list put back as costly work was costly, a light new item may replace
a light one). Not for a mapping (a key may add an item), nor for an item made from the
list's own (`Wrap(self.convs[i])`). No fix is offered: one item of a list cannot be
switched off by a flag.
A field the subclass sets on the object it passes to `super().__init__()` (a copied config:
`cfg.n_shared = None`, `setattr(cfg, "n_shared", None)` or `object.__setattr__(cfg,
"n_shared", None)`, with a literal name) decides the ancestor's tests of it.
A `del self.x` on the way to the rebuild proves that the ancestor's branch building `x`
ran: an ancestor build that branch excludes never happened, and is not reported.
A class reached through a name counts as that class built: a parameter whose default names
a class (`self.attn = attn_cls(...)` with `attn_cls=Attention`), an argument naming one
(`super().__init__(attn_cls=Attention)`), and a builder, a project function that returns a
call of one of its parameters (`build(spec, *args, **kwargs)` doing `return spec(*args,
**kwargs)`), called with a known class. What the constructed class's own default builds is
only possibly that (a caller may pass another class): `possibly`. So is what a builder
builds when it may also return something else (`if spec is None: return None`). A builder
may also return a call of a local taken from that parameter or from a field of it
(`module = spec.module` then `return module(*args, **kwargs)`, megatron's `build_module`).
What the simulation cannot follow has an *unknown* cost, never a cheap one: a callable
computed at run time (`REGISTRY[kind](d)`, `getattr(nn, name)(d)`), a local or argument
holding one, a class read from a settings object, a library the environment does not hold.
A rebuild whose discarded build is unknown is reported as a `warning` whose message says
the cost is not known (`possibly` only when the path is): it is at least light work and may
be heavy, and an `error` claims heavy work the simulation established, so the errors stay
trustworthy while nothing unknown is dropped (say what it costs with `expensive-calls` or
`cheap-calls`). A value that is one of several classes written in the code is followed:
`conv = nn.ConvTranspose3d if transpose else nn.Conv3d`, an item of a tuple of classes
(`types[dim - 1]`), or what a function returns when each of its `return`s gives such a class
(`conv = get_conv_layer(dim)`). Calling it costs what those classes cost where they agree
(all heavy, or none more than light); where they differ, which one runs is not known.
A lambda handed to a function counts as called: `make_layers(n, lambda i: Block(d))` costs
what building a `Block` costs.
A build from a *spec*, an unknown argument of the constructed class read through a field
(`build_module(submodules.linear_proj, ...)`, `submodules.core_attention(...)`,
`spec.module(...)`), followed by a build of the *same* spec (the same argument, read through
the same field, not changed in place in between: `submodules.linear_proj = X`, a rebuilt
`submodules`, or other parts handed to `super().__init__()` make it another) builds the same
class twice, whichever class it is. Its cost is what the project gives that field: every
`Holder(..., linear_proj=RowParallelLinear)` in the project's files (function bodies
included), and the field's default class in `Holder`'s body (`linear_proj: type =
RowParallelLinear`), where `Holder` is what the argument is annotated with (`submodules:
Holder`, `Optional[Holder]`, `Union[A, B]`). A class's name is taken by Python's convention
(its last part capitalised), and only the project's own files are read for it, not those
of installed dependencies. The heaviest of those classes is the severity, and the
finding is `possibly` (a caller may give another class). With no annotation, or no class
given anywhere, the build's cost stays unknown. A build of another spec (another field into
the same attribute, a rewritten one) is reported at an unknown cost too (`possibly`, a
warning): the first build is thrown away, but the field's classes say only what a spec
*may* hold, and a spec code replaces is often the one the project gives a no-op class
(`IdentityOp`), so pricing the discarded build by the heaviest class would claim work
nobody may have done.
When the ancestor builds the attribute in several branches (`self.norm = RMSNorm(d)` if on
the last stage, else a placeholder), the build thrown away is that of the branch that ran.
The subclass's branches are paired with the ancestor's when its test has the same text and
reads the same things, and a rebuild is then rated by what the paired branch built (a
placeholder rebuilt in the `else` discards the ancestor's placeholder: a warning). The test
may read constants, attributes of the object (`if self.pp_group.is_last_rank:`), and
attributes of what a function called without arguments returns (`if
get_pp_group().is_last_rank:`), where the name must resolve to the same function in both
modules, and names their module binds at its top level (`if _is_cuda:`, `if not
_is_cuda:`), where both tests must be in functions of the same module. A test repeated
with the same text is assumed to give the same answer within one construction: a global
getter such as `get_pp_group()` is taken to return the same thing
both times. Nothing the test reads on the object may be written in between (nor `self`
passed to code initlint does not follow); storing again what the attribute already held
from the same getter (`self.pp_group = get_parallel().pp_group` in both classes) is no
change. Other tests are not paired: a call with arguments, a local, an attribute replaced
by another value, a same-named function of another module. A rebuild under such a test is
rated by the heaviest build that may have run last, reported as `possibly`, and the
message names the other builds.
An ancestor path that cannot finish builds nothing: when a method the ancestor calls (an
override, by virtual dispatch) reads an attribute of the object that nothing can have set
yet (the subclass sets it only after `super().__init__()`; no class attribute, property or
`__getattr__` provides it; the read is not under `getattr`/`hasattr`, a `try` or a `with`),
that path raises AttributeError, so what follows on it is never built, and a rebuild only
reached on the other paths is no repeat. So does a super call Python refuses (a required
parameter of the ancestor's `__init__` left out, a surplus positional or a keyword it does
not take, with no `*args`/`**kwargs` pack passed that might make up for it): that path
raises TypeError before the ancestor builds anything. `initlint explain-class` shows where
a path stops.
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
`__init__` as a heavy rebuild, it shares the heavy one's flag. A module keeps the place among
its children where it was first registered, and `state_dict()` and `parameters()` follow
that order: when the ancestor registers other costly values between its build and the
subclass's rebuild, switching the build off moves the rebuilt value after them, so the fix
is unsafe and its message names them. A rebuild read from storage (`torch.load(path)`) gets no
fix where the ancestors' work writes a file: it may be what wrote it (a first run's
`process()` saving the data). Two subclasses whose fixes add the same parameter to one
ancestor but switch off different statements with it (one redoes the head and the norm,
the other the head only) are not fixed together: the first is applied, and the next pass,
which sees the new parameter, refuses the other where passing it would drop work that
class does not redo.
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
