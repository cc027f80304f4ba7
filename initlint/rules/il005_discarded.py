"""IL005 discarded-init-value: a value built on ``self`` and replaced, unread, in the same
construction."""

from __future__ import annotations

from typing import ClassVar

from initlint.rules.base import (
    STORAGE,
    Analyses,
    Finding,
    FixStrategy,
    RepeatFinding,
    Rule,
    Wording,
    register,
    unknown_cost_why,
)
from initlint.rules.discards import find_discards, sliced_items
from initlint.rules.refills import find_refills, joined, own_fill, pass_walk
from initlint.simulation.children import CHILDREN_LEFT
from initlint.simulation.levels import UNKNOWN
from initlint.simulation.records import DRAW_KINDS, Event, Simulation, first_run

# The examples' base: a project ``__init__`` above each class (as in a real model package).
_UNIT = """
from torch import nn


class Unit(nn.Module):
    def __init__(self):
        super().__init__()
        self.training_steps = 0
"""


@register
class DiscardedInitValue(Rule):
    code = "IL005"
    name = "discarded-init-value"
    summary = "A construction builds a value on `self` and replaces it before anything reads it."
    # The discarded build is deleted, when that is all its statement does.
    fix_strategies: ClassVar[frozenset[FixStrategy]] = frozenset({"delete-discarded"})
    runtime_repeats = STORAGE
    discards_first = True
    first_note = "built here, and thrown away"
    alternative_note = "replaced here too, on other paths"
    docs = {
        "What it does": """
Checks for a value stored on `self` (an attribute, a submodule, a buffer or a parameter)
that the same construction replaces before anything reads it: twice in one `__init__`, in
a helper method it calls and then in `__init__`, or by the subclass before its
`super().__init__()` and then by the ancestor; an ancestor's build that the subclass's own
code replaces during `super().__init__()` (its override of a hook the ancestor calls); or
an ancestor's build that the subclass drops after `super().__init__()`, for a constant
(`self.head = None`), for a value that builds nothing when what it drops is more than
light work (an object it already holds: `self.index = self.image.index`) or by deleting
it (`del self.head`, `delattr(self, "head")`), which no rebuild replaces. A `del self.x`
of the class's own unread build is a drop too. Work done on the build in place before the
drop is more of it, not a use: asking the value what it is (its device, dtype or shape,
`device = self.freqs.device`, `len(self.ups)`; a test against `None` is a use), a fill, a
pass of `apply` that only fills, a tensor changed from its own numbers
(`self.head.proj.weight.data.mul_(scale)`). Each target of `del self.norm, self.head` is
its own drop. So is other storage given to a
tensor an ancestor registered (`self.weight.data = qweight` in a subclass of `nn.Linear`):
what the ancestor allocated and filled goes, whatever the new numbers cost (setting its
`requires_grad` first reads none of them). (An ancestor's build that the subclass builds
again after `super().__init__()`, with or without a `del` first, is IL001-IL003's.)

A part of an object counts too. An object the class's own code stored (`self.model =
ResNet(...)`, or a factory's result, `self.model = resnet50()`, followed through every
`return` of the factory to the one class they construct, or to the several it picks from
a table it writes out, `net = models[name](**kwargs)` then `return net`: what each builds of
the part, possibly where only some do; also moved or cast in place by a
module method that returns it, `nn.Linear(a, b).to(device)`, `self.fc = self.fc.half()`,
which is no use of it), whose part it then replaces, drops
or ties to another (`self.model.fc = nn.Linear(d, n)`, `self.model.fc = None`, `del
self.model.fc`,
`self.head.weight = self.embed.weight`, also on one item of a held container by number,
`self.to_logits[-1].weight = self.token_emb.weight`, or by the key it was stored at,
`self.embs[name] = Table(n, d)` and then `self.embs[name].weight = nn.Parameter(vectors)`
(the key a string or a name bound to nothing else in between; items stored at other keys
in between read none it holds), at any depth of objects that the
constructions followed built, `self.expert.model.embed_tokens = None` after `self.expert =
CausalLM(cfg)`, each object on the path stored by a build or from a local the construction
built and did nothing else with, `lm = LM(cfg)` then `self.language_model = lm`; also
through a local that names a part, `lm = self.vlm.language_model` then `del lm.lm_head`,
read as the part itself, bound once and its part not stored again; or new numbers for a
part's tensor, `self.ms.weight.data = torch.eye(n)`)
before anything uses the object (reading how its
parts are configured, `self.model.fc.in_features` or a weight's `shape`, or asking whether
it has one, `hasattr(self.vlm, "language_model")`, is no use, nor is a fill of that very
part in place, `nn.init.normal_(self.tgt.weight)` before `self.tgt.weight = self.src.weight`,
which goes with it), throws
away the part that object's construction built: the severity is that part's. A use on some
paths only (`if probe: self.norm = self.out.weight.norm()`) keeps it on those: `possibly`.
Only a part the
construction builds on every path is counted: the object is simulated with the parameters
the call leaves out at their defaults and the ones it passes unknown (`nn.Embedding(n, d)`
builds its weight, `_weight` left at None; `nn.Linear(a, b, bias=flag)` may build no bias,
so that bias is not counted; through a factory, `self.model = resnet50(num_classes=n)`
whose `return ResNet(Bottleneck, **kwargs)` passes its packs on untouched, the parameters
that call of the class leaves out, the packs carrying only what the factory was given). A
part replaced by a slice of its own items (`self.vgg.classifier =
nn.Sequential(*self.vgg.classifier[:-2])`, or `[:-2]` alone, with bounds written out)
throws away the items the slice leaves out, when the container the object's construction
built holds its items by number (`nn.Sequential(A(), B(), ...)`); the severity is that of
the costliest item left out, and nothing is reported when they weigh nothing (a `Dropout`).
So does the object itself replaced by a slice of its own children (`self.net =
nn.Sequential(*list(self.net.children())[:-1])`, the slice its only mention there): each
costly child its construction registered outside the slice, in the order it registered them
(nothing claimed where that order is not known). A statement that replaces an item of a
part by number first (`self.net.features[0] = nn.Conv2d(...)`) reads the object only to
reach that part: no use. An ancestor's object whose part the class drops is reported the
same way (one whose part it rebuilds is IL003's). So is an object an ancestor builds by
calling a class its own parameter holds, which the class hands it by its super call
(`super().__init__(ConvClass=nn.Conv2d)`), when the ancestor replaces or drops a part of
it in that same call (`self.conv_r.weight.data = w`): the ancestor alone cannot know what
the parameter builds, so the finding sits at the ancestor's line, saying which classes
hand the class. A call of a project function that does nothing with the object it is
handed but give parts of it new values, from values that read nothing of it, with no
`return` or `raise` on the way (`def load_params(layer, weight, bias): layer.weight.data =
...`), replaces those parts as if the assignments were written at the call
(`load_params(self.fc, w, b)`; those under a test of the function's: not claimed, and no
use). No fix is offered: leaving the part out needs an argument of that class, where it
has one (`num_classes`).

The same holds for an object the class's own code builds into a local (`net =
resnet50()`, also moved or cast in place, `Attn(d).to(dtype)`): a part of it replaced or
deleted before the object is used (`net.fc = nn.Linear(d, n)`, `del net.fc`; `possible`
when the build runs on some paths only, as in a loop's body, or when the local holds a part
of an object made on another branch, `net = densenet121().features`, which is followed no
further; so through such a function, `load_params(net, w, b)`), and, for a build on
every path (or on branches that never both run, each: `if fid: net = make() else: net =
Other()`; or in one block, a name bound there alone and named nowhere outside it, `if
deep: net = ResNet()` then `self.body = net.body` there: `possible`), the parts left
behind when the code takes some (`self.body = net.layer4`,
`nn.Sequential(net.stem, net.body)`, or a slice of its children with bounds written out,
`nn.Sequential(*list(net.children())[:-2])`, which keeps the modules its construction
registered in that part of their order; when a module is stored there on some paths only,
or a costly value that may or may not be a module, the order is not known and nothing is
claimed) and never hands the object itself on (no argument, return, store, container, loop
over it or other method that hands parts out, such as `net.children()` walked whole;
`net.eval()` or `net.load_state_dict(sd)` keep it where it is). Binding the local again on
every path drops the object there, as the frame's end does (`net =
nn.Sequential(*list(net.children())[:-1])`, `net = net.features`): the parts taken until
then are kept. The finding is on the line that builds the local and names the costliest
parts left; a part with no weights left behind (a pooling layer) is not reported. An object
of a class that is no torch module (a settings object read field by field, `p = Params()`,
`d = p.width`) holds values, not parts: only a field holding a known heavy build is
claimed, never one of a cost not known here; and an object whose class answers attribute
reads through its own `__getattr__` is read whole by any read. A part left behind that was
unpacked from the same call as a part kept (`betas, alphas, shb, sha = grid(...)`, `sha`
and `shb` kept) did not cost that call's work, which was needed anyway; only what the part
holds is lost, whose size is not known: a warning. An object built only to take one
part of it, and never bound (`self.body = resnet50().layer4`, `feats =
vgg16_bn().features`, also through torch's methods that return the module they are called
on, `vgg16().features.to(device).eval()`), leaves the rest at once, wherever the statement
runs: the same
finding, on that line; a method taken (`self.l1 = MAE().metric`) is bound to the object,
which lives on in it (not a static or class method, nor a name the construction sets as an
attribute). An object built for an ancestor's `__init__` alone (`super().__init__(resnet18(),
...)`, or a local handed there and not mentioned after) is followed into it under its
parameter's name: when that `__init__` takes some parts (`self.layer1 = resnet.layer1`) and
never hands the object on, the parts it leaves are thrown away, reported on the subclass's
line that builds the object. A function of the project the construction calls to build an
object (a factory: `gpt = GPT2Model(cfg)`, `del gpt.wte`, `return gpt`) is part of that
construction: what it throws away of the objects it builds into its locals is reported at
its own lines, naming the classes that call it; a local it binds on several branches (`out =
layer` on one, `out = nn.Linear(...)` then `out.weight = layer` on another) is followed from
each binding. An object built into a local on every path
and kept (stored, handed on) only under conditions that leave a path out (`extra =
Block(d)`, stored under `if arch in six:` and `elif arch in seven:`, nothing on the `else`)
is dropped whole on the others: reported as possible, naming its costliest parts; kept on
every arm, or on every path that does not raise, it is not. Handing it to a class that
keeps only deep copies of it keeps nothing (`self.layer = layer` when shared, else
`nn.TransformerEncoder(layer, n)`). No fix is offered.

An item stored into a container the object holds and stored again at the same key, before
anything read the container, is thrown away the same way: `self.heads["a"] = nn.Linear(d,
d)` and then `self.heads["a"] = nn.Linear(d, 2 * d)`, or `self.models[i] = ...` twice in
one turn of a loop (the key a constant written twice, or one name bound to nothing else in
between; possibly, in a loop). No fix is offered.

An object built as an argument of a call that may return another value instead is thrown
away on the paths where it does: `self.proj = default(proj, nn.Linear(d, d))`, where
`default` is a function that returns one of its arguments as it picks (every `return`
gives a parameter, a call of one with no arguments, or None), `cfg.get("norm",
nn.LayerNorm(d))` and `getattr(cfg, "norm", nn.LayerNorm(d))`, the build also moved or cast
by a module method that returns it (`nn.Linear(d, d).to(device)`). Python builds every argument
before the call, so the fallback is built even when the caller passed its own. The finding
is `possibly` when what the call picks instead is not known here (an argument of the
class's own, which a caller may pass); nothing is reported when that is surely None (an
ancestor's parameter the subclass leaves at its default), for a fallback of light work, or
for one built only when called (`default(proj, lambda: nn.Linear(d, d))`). No fix is
offered: the rewrite (`proj if proj is not None else nn.Linear(d, d)`) depends on how the
function picks.

A method run again on an object the class's own code built, whose construction already ran
it (`self.model = Model(cfg)`, then `self.model.init_models()`), before anything used the
object, builds anew the parts that first run built on every path: the first ones are thrown
away. The finding names the heaviest. A method that fills rather than builds is the same
(`self.fc.reset_parameters()` right after `self.fc = nn.Linear(a, b)`, whose construction
ran it), and so is a loop that runs it over held modules (`for layer in self.layers:
layer.reset_parameters()`, the layers built in the container or appended to it, also through
a local, `layer = Block(d)` then `self.layers.append(layer)`; `for m in self.modules(): if
isinstance(m, Block): m.init_weights()`): the tensors each module's own run filled on every
path, unread since, are filled again, and those fills are thrown away (torch's own
`reset_parameters` is known when torch's sources are read). It is no repeat when the
module's construction changed, after its own run, anything that run read (`self.loaded =
True` after a `reset_parameters` that fills only when it is false), or the run itself set
what an earlier statement of it read (`if self.built: return` ... `self.built = True`: a
second run does nothing), nor when the class set a part of the module, filled one of its
tensors, moved or cast it, or walked the object in a way that may read its numbers
(`sum(c.weight.sum() for c in self.children())`) in between; a walk whose items are only
counted or asked their kind (`len(list(self.parameters(recurse=False)))`, `any(isinstance(c,
nn.ParameterList) for c in self.children())`) reads none of them; an item appended on some
paths only (`if extra: self.layers.append(Block())`) makes the finding `possibly`, and an
append whose arguments read what the container holds is a use. A test of the item initlint
cannot decide, arguments to the method, an object that is no module (walks reach modules
only), or a walk of `self.modules()` that reaches the object itself first claim nothing. No
fix is offered: which run to keep is a choice.

The numbers of a tensor are a value too: a tensor of `self` that an ancestor's code
initialised in place (`init.kaiming_uniform_(self.weight)` in torch's
`Linear.reset_parameters`, a project base's init pass) and that the class's own code fills
again, every number of it (`nn.init.xavier_uniform_(self.weight)`, `self.weight.data.normal_()`),
before anything reads them, throws the ancestor's pass away; it costs what the tensor is
(an `error` over a 2-D weight). Fills the ancestor makes on the arms of a branch that
together run on every path (torch's convolutions: `self.weight.copy_(t)` where the weight is
not contiguous, `init.kaiming_uniform_(self.weight)` where it is) are thrown away on every
path: the finding is definite. So is a whole fill of the class's own code that a later
whole fill of its own overwrites, nothing having read the tensor in between
(`nn.init.normal_(self.w)`, then `nn.init.zeros_(self.w)` under `if gating:`: possible), a
held module's part too (`self.proj.weight`, or one of a module it holds,
`self.block.ada.weight`, or of an item of one by a written-out number,
`self.t_embedder.mlp[0].weight`, also counted from the end where its items are known by
number, `self.final_layer.adaLN_modulation[-1].weight`, after a pass over the object).
Reading only the tensor's shape (torch's `_calculate_fan_in_and_fan_out`) is no read of its
numbers; filling a part of it (`self.weight[0].zero_()`) is no refill. A read on some paths
only (`if probe: self.s = self.w.sum()`) keeps the first fill on those: `possibly`; one on
the second fill's own branch, or in a loop's body, keeps it everywhere.
A fill of the part a
reparametrisation computes anew (`self.conv = weight_norm(nn.Conv1d(...))`, also through a
function that returns it, then `self.conv.weight.data.normal_()`;
`torch.nn.utils.parametrizations`' `weight_norm` and `spectral_norm` too) is lost the same
way: the numbers never reach the parameters the wrapper made (`weight_g` and `weight_v`, or
the parametrization's originals), from which the next forward computes `weight`; a use of
the module in between
(`remove_weight_norm(self.conv)`) keeps it from being reported (the old `spectral_norm`
shares the storage of `weight_orig`, and is not reported). So is a fill of a held module's
part that an ancestor filled (`init_weights(self.fc)` in the base, with a function that
fills `fc.weight`, then `nn.init.zeros_(self.fc.weight)`), or that a local's fill reached
when the local became the part (`nn.init.normal_(fc.weight)`, `self.fc = fc`); and the
random values a tensor was made with (`nn.Parameter(torch.randn(a, b))`, scaled or not, or
the items of an `nn.ParameterList` of such, also appended), filled whole before any read, by
one fill, by a pass over the object, by a loop over the list (`for w in self.weights:
nn.init.xavier_uniform_(w)`), or by a method of a held module its construction never ran
(`self.proj = Lin(d)`, then `self.proj.init_zero_()` over the weights `Lin` drew): the
draws are thrown away, where `torch.empty(a, b)` would hold the place. So are those of a
local (`emb = nn.Parameter(torch.randn(n, d))`, then `nn.init.normal_(emb, std=0.02)`,
before it is stored anywhere), filled whole by one of torch's fills before anything
mentions it; a project function that fills it is not followed there.

A pass over the object fills every tensor it walks: a loop over `self.parameters()`,
`self.named_parameters()`, `self.buffers()` or `self.modules()` (or over one held module's,
`self.encoder.modules()`; called with no arguments), or over the items of a held container
(`for block in self.blocks:`, `self.transformer.h`, filling `block.weight` or a part of a
module each item holds, `block.mlp.proj.weight`, or of an item of one by number,
`block.adaLN_modulation[-1].weight`, where the item's construction built that container
with its items known by number, the latter two with no test of the item but
`hasattr(block, "mlp")` or `block.mlp is not None` for the module the fill reaches; a
head that walks several in turn, `list(self.down) + list(self.up)`, `[*self.down,
*self.up]` or `itertools.chain(self.down, self.up)`, itself or through a local bound to it
once and read only there, is a loop over each), that only fills
what it walks, with torch's initialisers (`nn.init`'s, or a tensor's `normal_`,
`zero_`...), and reads nothing of it but its shape, and `self.apply(fn)` with a function
that only does that to the module it is handed (a method, a module's function, or one the
method running `apply` defines and binds by that `def` alone: `def _basic_init(m): ...`,
then `self.apply(_basic_init)`). Such a function of the method's own, called as a statement
with plain arguments (`_constant_init(block.adaLN_modulation[-1], 0)`), fills as its body
would written out at the call; one that tests what it is handed (`if isinstance(module,
nn.Linear):`) is read so only over an item of a loop around the call, its tests then tests
of the module the item holds. Where its tests on each item can be decided for a tensor the
object holds (`p.dim() > 1` for a tensor whose dimensions are known, `isinstance(m,
nn.Linear)` for a module of a known class, `type(m) in {nn.Conv2d, nn.Linear}` for its own
class alone, `"bias" in name`, `m.bias is not None` or `hasattr(m, "bias")` for a fill of
`m.bias`), the pass fills that tensor for sure: a whole fill of it just before the pass
(`nn.init.normal_(self.embed.weight)`, by any code of the construction) is thrown away by
the pass, and the pass's fill of it by a whole fill just after it
(`nn.init.normal_(self.level_embed)`), nothing having read the tensor or replaced what
holds it in between (one finding per statement: a loop written out once per item, `for e
in [self.t1, self.t2]: init(e.fc.weight)`, names each item's tensor and is priced by the
costliest). So are the fills a held module's own construction made (`self.attn =
Attention(d)`, whose `__init__` ran its own pass over its projections), on every path and
unread since, when the object's pass covers those tensors (`self.attn.q.weight`) before
anything read or replaced `self.attn`, and those of the project modules a container holds
(`self.blocks = nn.ModuleList([Block(d) for _ in range(n)])`:
`self.blocks.*.attn.q.weight`, four levels down; also a container built from a local list
given modules by `append` only, `nn.Sequential(*blocks)`, and one appended to in a loop:
putting an item in reads none the container holds; items built through a local that holds a
class, `build_block = SEBlock if se else Block`, or bound on the arms of an `if`, count the
fills every class it may hold made; and the items of a container a project function returns,
`_get_clones(Layer, n)` returning `nn.ModuleList([module_class() for _ in range(N)])`, are of
the class it is handed); a
library's module (torch's `nn.Linear`) fills only its defaults, which are not counted
there. So are the fills of the project function that built and returned the object (`def
linear(i, o): m = nn.Linear(i, o); nn.init.xavier_uniform_(m.weight); return m`, then
`self.fc = linear(d, d)`), made whole, last, on every path and unread before its one
`return`. A test of the module's class name (`m.__class__.__name__.find("Conv") != -1`) is
decided from its class. A pass's own fills are thrown away the same way by a later pass
over the same tensors, and by the pass itself where it walks the modules and a tensor is
tied into a second one (`self.lm_head.weight = self.embed.weight`, the tensor itself): it
fills that tensor once through each module (a walk over the parameters meets it once, as
torch yields a shared parameter once). A strict `self.load_state_dict(state)` (or a held module's,
`self.encoder.load_state_dict(state)`) fills every parameter as a pass does, or raises: an
initialisation before it (`nn.init.orthogonal_(self.conv.weight)`, `self.apply(init)`, a
held module's own) is thrown away when a state is loaded; `strict=False`, `assign=True`,
other arguments initlint cannot see, a load whose failure is caught (in a `try` or a
`with`), a state read from the object itself (`self.state_dict()`), and a class or held
module with its own `load_state_dict` or `_load_from_state_dict` claim nothing. A tensor
registered on some paths only makes the finding `possibly`; fills of one tensor on every
arm of an `if`/`else`, or of an `if`/`elif` whose last arm raises (`else: raise
NotImplementedError`), fill it on every path. A held module's fill under a test of a
module-level name (`if _init_weights: self.apply(self._init_weights)`) is filled again by a
pass of the holder under the same test (`possibly`: both depend on it). Plain locals
computed from a module's settings or the object's on the way (`fan_out = m.kernel_size[0] *
m.out_channels`, `std = self.config.initializer_range`), and tests and fill arguments that
read the object's attributes (`m.out_features == self.num_classes`, `std=self.init_std`; no
method of the object run), are part of a pass. A module held on some paths only (built on
one branch of several) is covered on those paths: a later pass's fill is then `possibly`; a
read of it on a branch that never runs with the pass (`if scaled: <a walk reading the
parameters>` / `else: self.apply(init)`) does not keep its fills, and one that may not run
with it (`if config.pruned_heads: self.prune_heads(...)`, in the held module's construction
or after its store) keeps them on its paths only: `possibly`. A test initlint cannot
decide (`p.requires_grad`, a module of a class it does not read) claims nothing. One
finding at the pass names every tensor it fills again. No fix is offered: which fill to
keep is a choice.

A build in an ancestor has no fix here: other classes run that code too; a flag there can
switch it off. A build dropped by `del` has no fix either: the build and the `del` go
together.

A class that keeps only deep copies of what it is handed (its `__init__` mentions the
parameter only as the first argument of one copying function, `copy.deepcopy(module)` or a
function whose body returns deep copies of its first argument, `_get_clones(layer, n)`, besides
`isinstance` and the attributes its tests read, never stores or passes on the object
itself) does not keep the value: `self.x = Complexified(self.x)`, or
`nn.ModuleList([Complexified(m) for m in self.skips])`, copies the first value and drops it
with the store, which is then reported like any replacement (no fix: the copying class is
what would change). So does an object the class builds only to hand to such a class, a
template: `layer = nn.TransformerEncoderLayer(d, h)` then `self.encoder =
nn.TransformerEncoder(layer, n)`, or the layer built in the call, is copied `n` times and
thrown away, and is reported, naming the parts its construction built (a class that also
reads attributes of the template, `nn.LayerNorm(layer.size)`, may keep those: a part read
so, `self.shared = layer.attn`, is left out; such a class is not followed for a value it
replaces on `self`); so is a local the
code itself only deep-copies (`layer = Block(d)`, then `nn.ModuleList([copy.deepcopy(layer)
for _ in range(n)])`), never keeping or handing on the object itself, or hands only to a
function of the project, or a method of the object, that returns copies of it
(`_get_clones(layer, n)`, `self._clones(layer, n)`; a field of the template read elsewhere,
`nn.LayerNorm(layer.size)`, takes that part and no other), also when the
copies' holder is bound back to the template's local (`enc = MultiWrap(enc, freqs)`,
possible where that runs on some paths). A template
built only where the caller gave none (`if mlp is None: mlp = ...`) is reported as possible;
a template that is one of torch's containers with its modules written out
(`nn.Sequential(nn.Linear(d, h), ...)`) names those modules by the numbers it holds them
under. A
statement whose head mentions the attribute only in a test against `None` (`if self.skips
is not None:`) and that holds its replacement asks whether there is an object, and reads
nothing of it.

Anything else that may see the first value between the two stores is a use, and nothing is
reported: reading `self.x` (wrapping it, `self.x = Wrapper(self.x)`; putting it in a
container; passing it to a function or a constructor; aliasing it, `self.y = self.x`, or
through a chain, `self.x = self.y = v`, which builds `v` once), a
method called on it or a part of it replaced (`self.x.append(...)`, `self.x.w = ...`),
`self` handed to code that may read anything (`init(self)`), and a call
initlint does not follow. A local stored in the attribute and used elsewhere too
(`h = Linear()`, `self.h = h`, `self.g = h`) lives on, and is not reported either. Two walks
see the object's modules without using them: a loop over `self.modules()` (or its
parameters) that only fills their tensors in place (`nn.init.kaiming_normal_(m.weight)`;
`m.reset_parameters()` is a use unless the loop's tests exclude the object itself, which the
walk yields first and whose own method may read anything), and torch's own registration
(`self.add_module(name, m)`), which looks a name up only to refuse a clash.

A placeholder is never reported: a constant such as `None`, a value that costs nothing,
`nn.Identity()`, or a tensor given a size of 0 (`torch.empty(0)`) or made from an empty list
(`torch.tensor([])`). Two stores under conditions that exclude each other (`if`/`else`, or
two tests of one argument against values that do not meet: `mode == "a"` and `mode in ("b",
"c")`; or two `if`s whose tests an earlier `assert not (a and b)` says never hold together)
are not a repeat. When the replacement happens on some paths only (the first value survives
when the condition is false), the finding is `possibly`; when branches that together cover
every path each replace it (an `if` and its `else`), it is definite. A path that ends in a
`raise` (not inside a `try` or `with`) builds no object, so it needs no replacement: a store
on each arm of `if`/`elif`/`else: raise` replaces the value on every path.

The control flow between the two stores is read from the function that holds both (or the
calls they run under): an early `return` after the first build ends the frame on its paths
(the later store belongs to the other paths; under a guard of its own, the finding is
`possibly`), unless a statement between them in a `try` body may raise into a handler that
lets the function go on (`except Exception: pass`; the finding is `possibly`), the arms of
a `match` never both run, and a store in an `except` handler of the `try` that built the
value is the fallback for a build that raised. So is a retry: with `ok = self._load()`,
where every `return` of `_load` gives a true constant and its body ends in one, then `if
ok: return` and a second `self._load()` (a loader that downloads what it could not read),
the second call runs only where the first raised, never after the first's work completed. A
value a memoised factory returned (`get_rope(...)`, see IL003) lives on in the factory's
cache: shared, not thrown away, and not reported. When one store replaces several builds
(each arm of an `if` before it), one finding names the heaviest.

Severity follows the discarded build: `error` for heavy work (a tensor, a module with
parameters or buffers, loaded data), `warning` for light work (a parameterless module such
as `nn.GELU`). A fill run again is priced as the tensor it fills, which costs no more than
building the torch module that holds it did, its sizes as written where it was built:
`self.fc.reset_parameters()` after `self.fc = nn.Linear(2, 2)` is light (a module light for
its kind, a norm layer or `nn.Linear(width, 1)`, holds vectors of a length not known here:
unknown; an item a comprehension repeats is as many as it makes). See IL003 for the cost
classes.
""",
        "Why is this bad": """
The first value is built, initialised and thrown away on every construction: a full
attention block or an embedding table allocated twice costs as much as the inherited
repeats IL001-IL003 report, and at model size it adds seconds and memory to start-up.
""",
        "Example": """
```python
class Layer(nn.Module):
    def __init__(self, dim, kind):
        super().__init__()
        self.attn = Attention(dim)
        if kind == "local":
            self.attn = LocalAttention(dim)
        else:
            self.attn = Attention(dim, window=None)
```
""",
        "Use instead": """
```python
class Layer(nn.Module):
    def __init__(self, dim, kind):
        super().__init__()
        if kind == "local":
            self.attn = LocalAttention(dim)
        else:
            self.attn = Attention(dim, window=None)
```
""",
        "Fix safety": """
When the discarded build is replaced on every path, and its statement does nothing but that
store (no other call, no other attribute written, `self` not handed to the code that builds
the value, no local bound), the fix deletes it: the object ends with the same state and no
path does more work. The fix is safe, unless other modules or tensors are registered
between the build and its replacement: the value is then registered after them, which
changes the order of `parameters()` (and so how optimizer state saved by position lines
up); that fix is unsafe, and says so. No fix is offered when the build is replaced on some
paths only (it is the value the others keep), when the replacement is an ancestor's (other
subclasses may rely on the ancestor's own build), when the statement does more than the
store, when the build is a buffer's registration and its replacement a plain store
(`self.register_buffer("cache", torch.zeros(n, d))`, then `self.cache = table`: without the
registration that store leaves a plain attribute, which `state_dict()` does not hold and
`.to()` does not move; or new numbers for it, `self.weight.data = t`, which find nothing to
set), or when a statement reads the attribute before the replacement (`dtype =
self.cache.dtype`: what the value is, which IL005 does not count as a use, but which needs
it there); the help line says which.
""",
    }
    VALID = (
        _UNIT
        + """

class Layer(Unit):
    def __init__(self, dim, kind):
        super().__init__()
        self.norm = None
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)
        self.proj = Wrapper(self.proj)
        if kind == "a":
            self.attn = nn.Linear(dim, dim)
        else:
            self.attn = nn.Linear(dim, 2 * dim)


class Wrapper(Unit):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner
""",
        _UNIT
        + """

class Table(Unit):
    def __init__(self, n, dim):
        super().__init__()
        self.embed = nn.Embedding(n, dim)
        self.norm = nn.LayerNorm(dim)
        nn.init.normal_(self.embed.weight)
        nn.init.constant_(self.norm.weight, 0.5)
        for p in self.parameters():
            if p.dim() > 1 and p.requires_grad:
                nn.init.xavier_uniform_(p)
""",
        """
from torch import nn


def default(val, d):
    return val if val is not None else d()


class Head(nn.Module):
    def __init__(self, dim, proj=None):
        super().__init__()
        self.proj = default(proj, lambda: nn.Linear(dim, dim))
""",
    )
    INVALID = (
        _UNIT
        + """

class Layer(Unit):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, 2 * dim)
""",
        _UNIT
        + """

class Table(Unit):
    def __init__(self, n, dim):
        super().__init__()
        self.embed = nn.Embedding(n, dim)
        nn.init.normal_(self.embed.weight)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
""",
        _UNIT
        + """
import torch


class Layer(Unit):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(dim, dim))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.weight)


class Stack(Unit):
    def __init__(self, dim, n):
        super().__init__()
        self.layers = nn.ModuleList([Layer(dim) for _ in range(n)])
        for layer in self.layers:
            layer.reset_parameters()
""",
        """
from torch import nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 7)
        self.fc = nn.Linear(2048, 1000)


class Encoder(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.stem = backbone.stem


class BackboneEncoder(Encoder):
    def __init__(self):
        super().__init__(Backbone())
""",
        """
import copy

from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attn = nn.Linear(dim, 3 * dim)


class Stack(nn.Module):
    def __init__(self, block, n):
        super().__init__()
        self.blocks = nn.ModuleList([copy.deepcopy(block) for _ in range(n)])


class Model(nn.Module):
    def __init__(self, dim, n):
        super().__init__()
        self.stack = Stack(Block(dim), n)
""",
        """
from torch import nn


def default(val, d):
    return val if val is not None else d


class Head(nn.Module):
    def __init__(self, dim, proj=None):
        super().__init__()
        self.proj = default(proj, nn.Linear(dim, dim))
""",
        """
import copy

from torch import nn


def clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


class Encoder(nn.Module):
    def __init__(self, dim, n):
        super().__init__()
        layer = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.layers = clones(layer, n)
""",
    )

    def detect(self, sim: Simulation, shared: Analyses) -> list[Finding]:
        return [*find_discards(sim), *find_refills(sim)]

    def decision(self, finding: Finding) -> str:
        init = isinstance(finding, RepeatFinding) and _refill(finding.event)
        if isinstance(finding, RepeatFinding) and finding.event.kind in ("local", "dropped"):
            return f"{finding.what} never kept"
        if isinstance(finding, RepeatFinding) and finding.event.kind == "fallback":
            return f"{finding.what} built as a fallback that may not be picked"
        if isinstance(finding, RepeatFinding) and finding.event.kind == "redrawn":
            return f"{finding.what} filled again before anything read them"
        again = "done again" if init else "replaced"
        if isinstance(finding, RepeatFinding) and finding.event.copied_by:
            return f"{finding.what} replaced by deep copies of it"
        if isinstance(finding, RepeatFinding) and _lost_fill(finding):
            assert finding.first.recomputed is not None  # (_lost_fill)
            return f"{finding.what} lost: {finding.first.recomputed[0]} computes it anew"
        return f"{finding.what} {again} before anything read it"

    def message(self, finding: Finding, wording: Wording) -> str:
        if not isinstance(finding, RepeatFinding):  # (its detect makes no other kind)
            raise TypeError(f"{self.code} words discarded builds, not a {finding.code} finding")
        if _refill(finding.event):
            return self._refilled(finding, wording)
        if finding.event.kind in ("local", "dropped"):
            return self._left(finding, wording)
        if finding.event.kind == "fallback":
            return _fallback(finding)
        if finding.event.kind == "redrawn":
            how = "possibly filled again here (on some paths)"
            if finding.confidence != "possible":
                how = "filled again here"
            return (
                f"{finding.what} (drawn at {wording.first_where}) are {how} before anything "
                "reads them: those draws are thrown away"
            )
        did = finding.through or finding.event  # (the statement that did it)
        deleted = did.kind == "delete" or did.effect.target == "del"
        done = "deleted" if deleted else "replaced"
        if sliced_items(did):
            done = "left out of the slice that replaces it"
        elif CHILDREN_LEFT in did.kept:
            done = "left out of the slice of the object's children that replaces the object"
        if finding.confidence == "possible":
            how = f"possibly {done} here (on some paths)"
        else:
            how = f"{done} here"
        if wording.through:  # (the call here runs the dependency's code that does it)
            how = f"possibly {done} on some paths" if finding.confidence == "possible" else done
            how += f" by {wording.through}, which this call runs,"
        copied = finding.event.copied_by
        unread = (
            f"by deep copies of it ({copied} keeps only copies of what it is handed)"
            if copied
            else "before anything reads it"
        )
        message = (
            f"{finding.what} built by {wording.first_fn} at {wording.first_where} is {how} "
            f"{unread}: that build is thrown away"
        )
        if wording.alternatives:
            message += f" (replaced again at {', '.join(wording.alternatives)})"
        if finding.cost == UNKNOWN:
            message += "; " + unknown_cost_why(finding)
        return message

    def note_for(self, finding: Finding, first: Event) -> str:
        if isinstance(finding, RepeatFinding) and _lost_fill(finding):
            assert first.recomputed is not None  # (_lost_fill: ``first`` is the wrap)
            return f"wrapped here by {first.recomputed[0]}"
        if isinstance(finding, RepeatFinding) and finding.event.kind == "redrawn":
            return "drawn at random here, and the draws thrown away"
        if first.kind == "pass":
            return f"filled here by {pass_walk(first)}, and that fill thrown away"
        if first.kind == "init":
            return "filled here, and the fill thrown away"
        refill = isinstance(finding, RepeatFinding) and _refill(finding.event)
        if refill and first.kind in DRAW_KINDS:  # (made of random draws)
            return "drawn at random here, and the draws thrown away"
        if first.kind == "rerun" and first.inner_fills:
            method = first.name.rpartition(".")[2]
            return f"filled here by `{method}()` run again, and that fill thrown away"
        return self.first_note

    def _left(self, finding: RepeatFinding, wording: Wording) -> str:
        """Parts of an object built into a local that the frame never takes."""
        dropped = "the object is dropped as soon as that part is taken"
        if finding.event.effect.kind == "super_init":
            dropped = "the base's __init__ takes only other parts of it and drops the rest"
        elif finding.event.copied_by:
            dropped = f"{finding.event.copied_by} makes its copies and drops the object"
        elif finding.event.kind == "local":
            dropped = "only other parts of the object are taken before the local is dropped"
        if finding.event.kept_on_some:
            message = (
                f"{finding.what} (built by {wording.first_fn} at {wording.first_where}) is "
                "built on every path but kept only on some: on the others the object is "
                "dropped with the local, so that build is thrown away"
            )
            return message + ("; " + unknown_cost_why(finding) if finding.cost == UNKNOWN else "")
        never = (
            "is possibly never kept (on some paths)"
            if finding.confidence == "possible"
            else ("is never kept")
        )
        message = (
            f"{finding.what} (built by {wording.first_fn} at {wording.first_where}) {never}: "
            f"{dropped}, so that build is thrown away"
        )
        if finding.cost == UNKNOWN and finding.first.cost > UNKNOWN:
            # (priced down by ``discards``: its call's work is shared with a part kept)
            message += (
                "; the call that made it made parts that are kept too, so only what it "
                "holds is lost, and how big that is is not known here"
            )
        elif finding.cost == UNKNOWN:
            message += "; " + unknown_cost_why(finding)
        return message

    def _refilled(self, finding: RepeatFinding, wording: Wording) -> str:
        """An ancestor's initialisation of a tensor, done again by the class's own code; or
        a fill of a part that a reparametrisation computes anew."""
        if _lost_fill(finding):
            assert finding.first.recomputed is not None  # (_lost_fill)
            wrapper, part = finding.first.recomputed
            lost = "is possibly lost" if finding.confidence == "possible" else "is lost"
            message = (
                f"{finding.what} {lost}: {wrapper} (applied at {wording.first_where}) "
                f"computes `{part}` anew from its own parameters, so these numbers never "
                "reach one"
            )
            if finding.cost == UNKNOWN:  # (a module built before the wrap: its size)
                message += "; how big the tensor is is not known here"
            return message
        # (tensors one pass fills again, or a tensor list's items: one finding)
        several = " and " in finding.what or "the items of" in finding.what
        verb = "are" if several else "is"
        again = "possibly filled again here (on some paths)"
        if finding.confidence != "possible":
            again = "filled again here"
        lost = "that pass is thrown away"
        by = f"by {wording.first_fn}"
        if finding.event.kind == "rerun":
            method = finding.event.name.rpartition(".")[2]
            again += f", by `{method}()`" + ("," if first_run(finding.event) else " run again,")
        if finding.event.kind in ("pass", "rerun"):
            if finding.event.kind == "pass":
                again += f", by {_walks_at(finding.sim, finding.event)},"
            lost = "that fill is thrown away"
            if finding.first.kind in DRAW_KINDS:  # (made of random draws)
                by, verb = f"(drawn in {wording.first_fn}", "are"
                lost = "those draws are thrown away"
            elif several:
                by = f"(the costliest filled by {wording.first_fn}"
                lost = "those fills are thrown away"
        elif finding.first.kind == "pass":
            by = f"by {pass_walk(finding.first)} in {wording.first_fn}"
            lost = "the pass's fills of them are" if several else "the pass's fill of it is"
            lost += " thrown away"
        elif finding.first.kind in ("assign", "buffer"):  # (made of random draws)
            by, verb = f"(drawn in {wording.first_fn}", "are"
            lost = "those draws are thrown away"
        elif own_fill(finding.sim, finding.first):
            lost = "that fill is thrown away"
        where = f"at {wording.first_where}" + (")" if by.startswith("(") else "")
        message = (
            f"{finding.what} {by} {where} {verb} {again} "
            f"before anything reads {'them' if several else 'it'}: {lost}"
        )
        if finding.cost == UNKNOWN:
            message += "; what the tensor costs to fill is not known here"
        return message


def _fallback(finding: RepeatFinding) -> str:
    """An argument built for a call that may return another value instead."""
    e = finding.event
    when = "whenever" if finding.confidence == "possible" else "here, as"
    message = (
        f"{finding.what} is built as an argument of `{e.name}(...)` and thrown away "
        f"{when} {e.args_key} is given instead: Python builds every argument before the "
        "call picks one"
    )
    if finding.cost == UNKNOWN:
        message += "; " + unknown_cost_why(finding)
    return message


# The events a refill finding is at: a fill of one tensor, or a pass over the object.
_FILLS = frozenset({"init", "pass"})


def _refill(e: Event) -> bool:
    """Whether a finding at ``e`` is about fills thrown away: at a fill, a pass, or a method
    run again over held modules that fills them anew."""
    return e.kind in _FILLS or (e.kind == "rerun" and bool(e.inner_fills))


def _lost_fill(finding: RepeatFinding) -> bool:
    """A fill of a part a reparametrisation computes anew: the finding is at the fill, about
    the store that wrapped the module (``refills._recomputed``)."""
    return finding.event.kind in ("init", "pass") and finding.first.recomputed is not None


def _walks_at(sim: Simulation, done: Event) -> str:
    """How the statement of the pass ``done`` walks the object: each walk its passes make
    (``for b in list(self.down) + list(self.up)`` makes two), in order."""
    at = (done.frame, done.effect.stmt_span)
    walks = dict.fromkeys(
        pass_walk(e) for e in sim.events if e.kind == "pass" and (e.frame, e.effect.stmt_span) == at
    )
    return joined(list(walks) or [pass_walk(done)])
