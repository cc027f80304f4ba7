"""The cost model: which expressions allocate or compute real data, and how much
(docs/design.md, "Cost classes").

Every cost is one of three levels: NONE (nothing is built), LIGHT (objects without tensors:
a parameterless module, a sampler, a tensor of a few numbers, a copy of a plain object) and HEAVY
(tensors, parameters or buffers, a module that owns them, I/O and checkpoint loading). A
repeat of HEAVY work is an ``error``, of LIGHT work a ``warning``.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable, Mapping
from dataclasses import field
from fnmatch import fnmatchcase

from initlint.facts.model import Body, BodyError, Const, Effect, Expr
from initlint.index.project import ProjectIndex
from initlint.index.records import NO_BINDINGS, ClassInfo, FunctionInfo, Module, Target
from initlint.records import dataclass
from initlint.simulation.memo import Hop, MemoRoute
from initlint.simulation.values import Val

TORCH_OPS = frozenset(
    """arange empty zeros ones rand randn randint randperm rand_like randn_like full tensor
    linspace logspace outer einsum cat concat concatenate stack tril triu exp log sin cos tan
    pow matmul mm bmm polar eye from_numpy load normal multinomial bernoulli cumsum cumprod
    sqrt rsqrt sigmoid softmax tanh meshgrid cartesian_prod kron tile repeat_interleave where
    clone as_strided empty_strided frombuffer view_as_complex view_as_real complex fft
    diag diag_embed block_diag combinations sort argsort topk exp2 expm1 log2 log10 log1p
    reciprocal mul div add sub erf erfinv atan2 hann_window hamming_window""".split()
)
NUMPY_OPS = frozenset(
    """arange empty zeros ones full array linspace logspace outer einsum concatenate stack
    tril triu exp log sin cos pow matmul eye load loadtxt fromfile genfromtxt meshgrid
    memmap""".split()
)
IO_CALLS = frozenset(
    """open io.open json.load pickle.load torch.load numpy.load numpy.loadtxt numpy.fromfile
    numpy.genfromtxt h5py.File PIL.Image.open yaml.load yaml.safe_load yaml.full_load
    safetensors.torch.load_file safetensors.safe_open datasets.load_dataset scipy.io.loadmat
    joblib.load csv.reader tokenizers.Tokenizer.from_file""".split()
)
# Methods on an expensive value that only read metadata.
METADATA_METHODS = frozenset(
    """size dim numel item tolist nelement element_size stride data_ptr is_contiguous
    get_device ndimension keys values items""".split()
)
# torch.nn classes that are containers or wrappers: cheap themselves.
CHEAP_NN = frozenset(
    "Module ModuleList ModuleDict Sequential ParameterList ParameterDict Identity Parameter"
    " Buffer Flatten Unflatten".split()
)
TENSOR_METHODS = frozenset(
    """to float half double bfloat16 cuda cpu clone contiguous cos sin exp log pow repeat
    expand_as reshape view unsqueeze squeeze transpose permute t mul div add sub matmul
    flatten chunk split cumsum detach type_as""".split()
)


# Operators whose value is a bool (``x is None``, ``not x``, ``bool(x)``): the cost of the
# names they test is not carried into it.
_TESTS = frozenset({"test", "not", "bool"})

# Cost levels, ordered: the cost of several pieces of work is the highest of theirs.
# UNKNOWN is what the simulation cannot follow (a callable computed at run time, a name that
# resolves to nothing it can read): at least light work, possibly heavy, never cheap.
NONE, LIGHT, UNKNOWN, HEAVY = 0, 1, 2, 3
COST_NAMES = ("none", "light", "unknown", "heavy")
# Names Python binds in every module: calling one is no construction work to follow.
BUILTIN_NAMES = frozenset(dir(builtins))

# torch.nn classes that own no parameter or buffer: building one is light work.
LIGHT_NN = frozenset(
    """Identity Flatten Unflatten ReLU ReLU6 RReLU GELU SiLU Mish Sigmoid Tanh Softmax Softmin
    LogSoftmax Softmax2d Softplus Softsign ELU SELU CELU LeakyReLU Hardtanh Hardswish
    Hardsigmoid Hardshrink Softshrink Tanhshrink Threshold GLU LogSigmoid Dropout Dropout1d
    Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout MaxPool1d MaxPool2d MaxPool3d
    AvgPool1d AvgPool2d AvgPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d
    AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d LPPool1d LPPool2d LPPool3d
    FractionalMaxPool2d FractionalMaxPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d Upsample
    UpsamplingNearest2d UpsamplingBilinear2d PixelShuffle PixelUnshuffle ChannelShuffle Fold
    Unfold ZeroPad1d ZeroPad2d ZeroPad3d ConstantPad1d ConstantPad2d ConstantPad3d
    ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d
    ReplicationPad3d CircularPad1d CircularPad2d CircularPad3d CosineSimilarity
    PairwiseDistance""".split()
)
# The parameters and buffers a torch.nn module's __init__ registers, and the keyword that
# switches each off when passed False (a subclass that registers one again after
# super().__init__() discards a tensor torch allocated).
_AFFINE: dict[str, tuple[str, ...]] = {
    "weight": ("elementwise_affine", "affine"),
    "bias": ("bias", "elementwise_affine"),
}
_WB: dict[str, tuple[str, ...]] = {"weight": (), "bias": ("bias",)}
TORCH_PARAMS: dict[str, dict[str, tuple[str, ...]]] = {
    **{n: _WB for n in "Linear Bilinear LazyLinear".split()},
    **{
        f"{kind}{d}d": _WB
        for kind in ("Conv", "ConvTranspose", "LazyConv", "LazyConvTranspose")
        for d in (1, 2, 3)
    },
    "Embedding": {"weight": ()},
    "EmbeddingBag": {"weight": ()},
    "PReLU": {"weight": ()},
    "LayerNorm": _AFFINE,
    "GroupNorm": {"weight": ("affine",), "bias": ("affine",)},
    "RMSNorm": {"weight": ("elementwise_affine",)},
    **{
        f"BatchNorm{d}d": {
            "weight": ("affine",),
            "bias": ("affine",),
            "running_mean": ("track_running_stats",),
            "running_var": ("track_running_stats",),
        }
        for d in (1, 2, 3)
    },
}


# The size arguments each of those registrations' shape takes, as (position, keyword) in the
# class's __init__: a Linear built as ``Linear(0, 0)`` (the placeholder of a lazy module)
# registers tensors with no data.
_LINEAR_SHAPE = {
    "weight": ((0, "in_features"), (1, "out_features")),
    "bias": ((1, "out_features"),),
}
_CONV_SHAPE = {"weight": ((0, "in_channels"), (1, "out_channels")), "bias": ((1, "out_channels"),)}
TORCH_SHAPES: dict[str, dict[str, tuple[tuple[int, str], ...]]] = {
    "Linear": _LINEAR_SHAPE,
    **{f"{kind}{d}d": _CONV_SHAPE for kind in ("Conv", "ConvTranspose") for d in (1, 2, 3)},
    "Embedding": {"weight": ((0, "num_embeddings"), (1, "embedding_dim"))},
    "EmbeddingBag": {"weight": ((0, "num_embeddings"), (1, "embedding_dim"))},
}


# The registrations of those classes that are vectors over one feature dimension (a bias, a
# norm's scale and shift, its running statistics): registering one again discards O(width)
# numbers, beside the O(width^2) of a weight matrix. Such a registration alone is LIGHT; a
# module that owns one is still HEAVY (it owns parameters).
_NORM_VECTORS = frozenset({"weight", "bias", "running_mean", "running_var"})
TORCH_VECTORS: dict[str, frozenset[str]] = {
    **{n: frozenset({"bias"}) for n in TORCH_PARAMS if n not in ("Embedding", "EmbeddingBag")},
    **{n: _NORM_VECTORS for n in TORCH_PARAMS if "Norm" in n},
    "PReLU": frozenset({"weight"}),
}


def torch_vector(qualname: str, param: str) -> bool:
    """Whether the torch.nn class ``qualname`` registers ``param`` as a 1-D vector."""
    head, _, last = qualname.rpartition(".")
    return head.startswith("torch.nn") and param in TORCH_VECTORS.get(last, ())


def torch_shape(qualname: str, param: str) -> tuple[tuple[int, str], ...]:
    """The size arguments of what the torch.nn class ``qualname`` registers as ``param``."""
    head, _, last = qualname.rpartition(".")
    if not head.startswith("torch.nn"):
        return ()
    return TORCH_SHAPES.get(last, {}).get(param, ())


def torch_params(qualname: str) -> dict[str, tuple[str, ...]]:
    """What the torch.nn class ``qualname`` registers (see TORCH_PARAMS); {} if unknown."""
    head, _, last = qualname.rpartition(".")
    return TORCH_PARAMS.get(last, {}) if head.startswith("torch.nn") else {}


# Calls that load a model or its weights, whatever the class they are called on.
LOADERS = frozenset("from_pretrained from_config from_config_dict from_single_file".split())
# Decorators that memoise a function: a second call with equal arguments builds nothing.
MEMOISERS = frozenset(
    "cache lru_cache functools.cache functools.lru_cache cached_function memoize".split()
)
# How many plain wrappers a call may pass through on its way to a memoised factory.
MAX_WRAPPERS = 3
# Factories whose size arguments decide whether the tensor is small (a light tensor).
SIZED_FACTORIES = frozenset("zeros ones empty full rand randn".split())
SCALAR_FACTORIES = frozenset("tensor as_tensor scalar_tensor".split())
# Calls that make an array of the values they are given, without sizes of their own: an
# array of what a function computed from the values it holds is no bigger than they are.
DATA_CONVERSIONS = frozenset(
    """numpy.array numpy.asarray numpy.concatenate numpy.stack torch.tensor torch.as_tensor
    torch.Tensor torch.from_numpy torch.cat torch.concat torch.concatenate torch.stack""".split()
)
# A tensor whose every number the code writes out, at most this many (``torch.tensor([0,
# shard])``), is LIGHT: a few bytes. A factory sized by a number (``torch.zeros(4)``, a
# stand-in for any size) is LIGHT only when it holds at most one element.
SMALL_NUMEL = 16

# torch classes whose instances hold no data yet: the placeholders of torch's ``Lazy*``
# modules, materialised at the first forward. Building one is light work.
UNINITIALIZED = frozenset("UninitializedParameter UninitializedBuffer".split())

Costs = Mapping[str, int]
# What pricing returns: a cost level, or the error of a body it had to read that does not
# parse (the pricing, and the simulation that asked, end there; nothing of it is memoised).
Priced = int | BodyError
NO_COSTS: Costs = {}
# The constants the names of the frame being simulated are bound to (its arguments and
# locals): a size argument ``torch.empty((out, in))`` with ``out`` bound to 0 is no data.
Bound = Mapping[str, Val]
NO_BOUND: Bound = {}


def keyword_values(call: Expr) -> dict[str, Expr]:
    """The keyword arguments of ``call`` by name (``**kw`` left out)."""
    kws = call.keywords[1:] if call.keywords[:1] == ("*",) else call.keywords
    if not kws:
        return {}
    return {
        k: v for k, v in zip(kws, call.children[len(call.children) - len(kws) :], strict=True) if k
    }


def switched_off(offs: tuple[str, ...], keywords: Mapping[str, object]) -> bool:
    """Whether one of the keywords ``offs`` is passed as False (``bias=False``)."""
    return any(keywords.get(k, True) is False for k in offs)


def _kw_consts(call: Expr, bound: Bound) -> dict[str, object]:
    """The constant values of ``call``'s keyword arguments (through the bound names)."""
    out: dict[str, object] = {}
    for k, v in keyword_values(call).items():
        if v.kind == "const":
            out[k] = v.value
        elif v.kind == "name":
            val = bound.get(v.name)
            if val is not None and val.kind == "const":
                out[k] = val.value
    return out


def torch_module_cost(last: str, call: Expr | None, bound: Bound = NO_BOUND) -> int:
    """A torch.nn module built by ``call``: HEAVY when it still registers a tensor, LIGHT
    when its keywords switch every registration off (``nn.LayerNorm(d,
    elementwise_affine=False)``, ``nn.BatchNorm1d(d, affine=False,
    track_running_stats=False)``): a module that owns no parameter or buffer."""
    params = TORCH_PARAMS.get(last)
    if params and all(p in TORCH_VECTORS.get(last, ()) for p in params):
        return LIGHT  # a norm layer: it owns only vectors (weight, bias, running stats)
    if not params or call is None or not call.keywords:
        return HEAVY
    keywords = _kw_consts(call, bound)
    if all(switched_off(offs, keywords) for offs in params.values()):
        return LIGHT
    return HEAVY


_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}


def _int(e: Expr, bound: Bound) -> int | None:
    """The integer ``e`` evaluates to over the bound constants, or None if not known."""
    v: object
    if e.kind == "const":
        v = e.value
    elif e.kind == "name":
        val = bound.get(e.name)
        v = val.value if val is not None and val.kind == "const" else None
    elif e.kind == "op" and len(e.children) == 2 and e.name in _ARITH:
        left, right = (_int(c, bound) for c in e.children)
        if e.name == "*" and 0 in (left, right):
            return 0
        if e.name in ("//", "%") and left == 0:
            return 0  # 0 // groups
        if left is None or right is None:
            return None
        if e.name in ("//", "%") and right == 0:
            return None
        return _ARITH[e.name](left, right)
    else:
        return None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def numel(sizes: tuple[Expr, ...], bound: Bound = NO_BOUND) -> int | None:
    """How many elements a tensor of shape ``sizes`` holds (each size an int or a tuple of
    them): 0 when any size is 0, even beside unknown ones; None when not known."""
    total: int | None = 1
    for s in sizes:
        if s.kind == "op" and s.name == "tuple":
            n = numel(s.children, bound)
        elif s.kind == "name" and (v := bound.get(s.name)) is not None and v.kind == "args":
            n = _numel_of(v.items)  # a shape held in a local: ``shape = (2, 3)``
        else:
            n = _int(s, bound)
        if n == 0:
            return 0
        if n is None or n < 0:
            total = None
        elif total is not None:
            total *= n
    return total


def _numel_of(items: tuple[Val, ...]) -> int | None:
    """The number of elements of a shape held as values (``shape = (2, n)`` bound)."""
    total: int | None = 1
    for v in items:
        n = v.value if v.kind == "const" else None
        if not isinstance(n, int) or isinstance(n, bool):
            total = None
        elif n == 0:
            return 0  # a size of 0 beside unknown ones: no data
        elif total is not None:
            total *= n
    return total


def _number(v: Const) -> bool:
    return isinstance(v, int | float | complex)


def literal_numel(e: Expr, bound: Bound = NO_BOUND) -> int | None:
    """How many numbers ``torch.tensor(e)`` holds, where that is known from ``e`` itself: a
    number is one; a list or tuple display (or a local bound to one, ``offsets = [0, n]``)
    with a number among its items is a vector of its length, since torch allows no ragged
    data (every other item must be a number too); a display of such displays, all of one
    length, their total. None when not known (a starred item, a list of unknown names)."""
    if e.kind == "const":
        return 1 if _number(e.value) else None
    if e.kind == "op" and e.name == "tuple":
        if any(c.kind == "op" and c.name == "*" for c in e.children):
            return None
        if any(c.kind == "const" and _number(c.value) for c in e.children):
            return len(e.children)
        inner = {literal_numel(c, bound) for c in e.children}
        if not e.children or len(inner) != 1 or None in inner:
            return 0 if not e.children else None
        (each,) = inner
        return None if each is None else each * len(e.children)
    if e.kind == "name":
        v = bound.get(e.name)
        if v is not None and v.kind == "args" and not v.open:
            if any(i.kind == "const" and _number(i.value) for i in v.items):
                return len(v.items)
            return 0 if not v.items else None
    return None


def _tensor_cost(last: str, call: Expr, bound: Bound = NO_BOUND) -> int:
    """HEAVY for a tensor factory, LIGHT when its arguments make it a tensor of a few
    numbers written out in the code: a scalar, a literal list of at most SMALL_NUMEL numbers
    (``torch.tensor([0, shard])``, also through a local holding the list); or a sized one of
    at most one element (``torch.zeros(1)``, ``torch.empty(0)``, a shape whose size argument
    is bound to 0). Any other size (``torch.zeros(max_num_tokens)``, ``torch.ones(hidden)``,
    ``torch.zeros(4)``) is HEAVY."""
    args = call.children
    if isinstance(call.value, int) and not isinstance(call.value, bool):
        args = args[: call.value]  # the positional arguments; the rest are keywords
    if not args:
        return HEAVY
    first = args[0]
    if last in SCALAR_FACTORIES:
        n = literal_numel(first, bound)
        if n is not None:
            return LIGHT if n <= SMALL_NUMEL else HEAVY
        if first.kind in ("name", "attr"):
            return UNKNOWN  # a copy of data the caller holds, of a size not known here
        return HEAVY
    if last in SIZED_FACTORIES:
        shaped = first.kind == "op" and first.name == "tuple"
        held = first.kind == "name" and (v := bound.get(first.name)) is not None
        if last == "full" or shaped or (held and v is not None and v.kind == "args"):
            args = args[:1]  # one shape argument
        n = numel(args, bound)
        if n is not None and n <= 1:
            return LIGHT
    return HEAVY


@dataclass
class CostModel:
    index: ProjectIndex
    expensive_calls: tuple[str, ...] = ()
    cheap_calls: tuple[str, ...] = ()
    _fn_memo: dict[tuple[str, str], int] = field(default_factory=dict)
    _cls_memo: dict[str, int] = field(default_factory=dict)
    _memo_fn: dict[str, bool] = field(default_factory=dict)
    _route_memo: dict[str, tuple[MemoRoute, ...]] = field(default_factory=dict)

    def _matches(self, name: str, patterns: tuple[str, ...]) -> bool:
        return bool(patterns) and any(fnmatchcase(name, p) for p in patterns)

    def external_expensive(self, name: str) -> bool:
        return self.external_cost(name) > NONE

    def external_cost(self, name: str, call: Expr | None = None, bound: Bound = NO_BOUND) -> int:
        """The cost of calling the external (non-project) callable ``name`` (``call`` holds
        the arguments, read for a tensor factory's sizes)."""
        if self._matches(name, self.cheap_calls):
            return NONE
        if self._matches(name, self.expensive_calls):
            return HEAVY
        if name in IO_CALLS:
            return HEAVY
        head, _, last = name.rpartition(".")
        if last in LOADERS:
            return HEAVY
        if head.startswith("pandas") and last.startswith("read_"):
            return HEAVY
        if head == "torch" and (last in TORCH_OPS or last.endswith("_like")):
            return HEAVY if call is None else _tensor_cost(last, call, bound)
        if last in UNINITIALIZED and head.startswith("torch.nn"):
            return LIGHT
        if head in (
            "torch.fft",
            "torch.linalg",
            "torch.special",
            "torch.random",
            "torch.distributions",
        ):
            return HEAVY
        if head in ("numpy", "numpy.random") and (last in NUMPY_OPS or head == "numpy.random"):
            return HEAVY
        if head.startswith("torch.nn") and last[:1].isupper() and last not in CHEAP_NN:
            if "functional" in head or "init" in head:
                return NONE
            if last in LIGHT_NN or last.endswith("Loss"):
                return LIGHT
            return torch_module_cost(last, call, bound)
        if head.startswith("torch.nn") and last in LIGHT_NN:
            return LIGHT
        return NONE

    def expr_cost(
        self,
        e: Expr | None,
        module: Module,
        mro: tuple[str, ...],
        locals_: Costs = NO_COSTS,
        attrs: Costs = NO_COSTS,
        bound: Bound = NO_BOUND,
    ) -> Priced:
        """The cost of evaluating ``e``: the highest cost of the calls in it. ``locals_`` and
        ``attrs`` hold what the locals and ``self`` attributes in scope cost to build (a name
        carries the cost of the work that made it; ``attrs`` are read by ``copy.deepcopy``);
        ``bound`` the constants the frame's names hold (a tensor's sizes)."""
        if e is None:
            return NONE
        best = NONE
        stack = [e]
        while stack:
            cur = stack.pop()
            kind = cur.kind
            if kind == "name":
                c = locals_.get(cur.name, NONE)
            elif kind == "op":
                if cur.name in _TESTS:  # a bool: naming a costly local builds nothing
                    stack.extend(c for c in cur.children if c.kind != "name")
                else:
                    stack.extend(cur.children)
                continue
            elif kind == "call":
                priced = self._call(cur, module, mro, locals_, attrs, bound)
                if isinstance(priced, BodyError):
                    return priced
                c = priced
                stack.extend(cur.children)
            else:
                continue
            if c > best:
                best = c
                if best == HEAVY:
                    return HEAVY
        return best

    def _call(
        self,
        call: Expr,
        module: Module,
        mro: tuple[str, ...],
        locals_: Costs,
        attrs: Costs,
        bound: Bound = NO_BOUND,
    ) -> Priced:
        name = call.name
        if self._matches(name, self.cheap_calls):
            return NONE
        if self._matches(name, self.expensive_calls):
            return HEAVY
        recv = call.receiver
        if recv is not None and recv.kind == "name" and recv.name == "self" and call.attr:
            fn = self.index.lookup_method(mro, call.attr)
            return NONE if fn is None else self.function_cost(fn, mro)
        if call.attr in LOADERS:
            return HEAVY
        best: Priced = NONE
        if recv is not None and call.attr not in METADATA_METHODS:
            if recv.kind in ("call", "name", "op"):
                best = self.expr_cost(recv, module, mro, locals_, attrs, bound)
                if isinstance(best, BodyError) or best == HEAVY:
                    return best
        if not name:
            # ``REGISTRY[kind](d)``, ``getattr(nn, name)(d)``: a callable computed at run time
            return best if recv is not None else _highest(best, UNKNOWN)
        held = bound.get(name)
        if held is not None and held.ref is not None:  # ``attn_cls(...)``: what it was given
            given = self.index.resolve_value(*held.ref)
            if given is None:
                return _highest(best, UNKNOWN)
            return _highest(best, self._ref_cost(given, call, module, mro, locals_, attrs, bound))
        # Built-in knowledge of torch stays the judge of torch's own classes and functions
        # where torch is installed (nn.ModuleList is cheap, nn.Linear is not); other
        # dependencies are judged from their source, like the project, the modules read
        # when first needed: what a call costs never depends on what else this run read.
        public = self.index.public_name(module, name)
        if public is not None and public.startswith("torch."):
            external = self._external_call(public, call, module, mro, locals_, attrs, bound)
            return _highest(best, external)
        target = self.index.resolve(module, name)
        if target is not None and target.name.startswith("torch."):
            if self.index.in_dependency(target):
                return _highest(best, self.external_cost(public or target.name, call, bound))
        if target is None:
            if name in IO_CALLS or self._matches(name, self.expensive_calls):
                return HEAVY
            if recv is None and name not in BUILTIN_NAMES:
                return _highest(best, UNKNOWN)  # a local or argument holding some callable
            if recv is not None and recv.kind == "name" and recv.name not in locals_:
                if self._imported_object(module, recv.name):
                    # ``MODELS.build(cfg)``: a method of an object another module made
                    return _highest(best, UNKNOWN)
            return best
        if target.kind == "external":
            external = self._external_call(target.name, call, module, mro, locals_, attrs, bound)
            if (
                external == NONE
                and not self.index.known_external(target.name)
                and not self._matches(target.name, self.cheap_calls)
            ):
                external = UNKNOWN  # a library the environment does not hold: not read
            return _highest(best, external)
        if target.kind == "class":
            info = self.index.class_info(target.name)
            return best if info is None else _highest(best, self.class_cost(info))
        if target.kind == "function":
            fn = self.index.function_info(target.name)
            return best if fn is None else _highest(best, self.function_cost(fn, ()))
        return best

    def _imported_object(self, module: Module, name: str) -> bool:
        """``name`` is imported into ``module`` and resolves to no class, function or module
        initlint knows: an object some module made (a registry, a settings object)."""
        classes, functions, imports = self.index.name_table(module).named.get(name, NO_BINDINGS)
        return bool(imports) and not classes and not functions

    def target_cost(self, target: Target, module: Module, mro: tuple[str, ...]) -> Priced:
        """What building the class or function ``target`` costs with arguments initlint
        does not see: a class a spec possibly holds (``engine._Run._spec_cost``)."""
        call = Expr("call", name=target.name)
        return self._ref_cost(target, call, module, mro, NO_COSTS, NO_COSTS, NO_BOUND)

    def _ref_cost(
        self,
        target: Target,
        call: Expr,
        module: Module,
        mro: tuple[str, ...],
        locals_: Costs,
        attrs: Costs,
        bound: Bound,
    ) -> Priced:
        """What calling the class or function ``target`` costs: a name bound to one, such as
        a parameter whose default is a class (``attn_cls=Attention``)."""
        if target.kind == "external" or (
            target.name.startswith("torch.") and self.index.in_dependency(target)
        ):
            return self._external_call(target.name, call, module, mro, locals_, attrs, bound)
        if target.kind == "class":
            info = self.index.class_info(target.name)
            return NONE if info is None else self.class_cost(info)
        fn = self.index.function_info(target.name)
        return NONE if fn is None else self.function_cost(fn, ())

    def _external_call(
        self,
        name: str,
        call: Expr,
        module: Module,
        mro: tuple[str, ...],
        locals_: Costs,
        attrs: Costs,
        bound: Bound = NO_BOUND,
    ) -> Priced:
        if name == "copy.deepcopy":
            return self._copy_cost(call, module, mro, locals_, attrs)
        if name in DATA_CONVERSIONS and call.children:
            data = [c for c in call.children[: call.value if isinstance(call.value, int) else None]]
            if data and all(_made_here(d, locals_) for d in data):
                # an array of the values this function computed: as big as they are, and
                # what computing them cost is counted where they were computed
                return LIGHT
        return self.external_cost(name, call, bound)

    def _copy_cost(
        self, call: Expr, module: Module, mro: tuple[str, ...], locals_: Costs, attrs: Costs
    ) -> Priced:
        """``copy.deepcopy(x)`` costs what building ``x`` cost; at least LIGHT when ``x`` is
        not known (a copy of some object), NONE for a constant."""
        if not call.children:
            return NONE
        arg = call.children[0]
        if arg.kind == "const":
            return NONE
        if arg.kind == "attr" and arg.receiver is not None and arg.receiver.name == "self":
            known = attrs.get(arg.attr)
            if known is not None:
                return known
        elif arg.kind == "name" and arg.name in locals_:
            return max(LIGHT, locals_[arg.name])
        return _highest(LIGHT, self.expr_cost(arg, module, mro, locals_, attrs))

    def class_cost(self, info: ClassInfo) -> Priced:
        """A project class costs what its ``__init__`` chain costs, and at least LIGHT when it
        has an ``__init__`` of its own or is an ``nn.Module``; one that inherits a torch
        module with parameters (``nn.Linear``) is HEAVY. A class without either (a plain
        dataclass, an enum) costs nothing. A body that does not parse ends the pricing: its
        error is returned, and the recursion guard is taken back (nothing memoised)."""
        key = info.qualname
        if key in self._cls_memo:
            return self._cls_memo[key]
        self._cls_memo[key] = NONE  # recursion guard
        mro = self.index.mro(key).classes
        result = NONE
        for qual in mro:
            cinfo = self.index.class_info(qual)
            if cinfo is None or cinfo.module.is_dependency:
                head, _, last = qual.rpartition(".")
                if head.startswith("torch.nn"):
                    # torch.nn.Module, or torch.nn.modules.module.Module
                    if last == "Module":
                        result = max(result, LIGHT)
                    elif last not in CHEAP_NN:
                        result = max(result, self.external_cost(qual))
                if result == HEAVY:
                    break
            if cinfo is None or (cinfo.module.is_dependency and qual.startswith("torch.")):
                continue  # torch's own classes: judged by what the cost model knows of them
            init = cinfo.facts.method("__init__")
            if init is not None:
                fn = FunctionInfo(f"{qual}.__init__", cinfo.module, init, cinfo)
                # An object whose own __init__ sets it up (a sampler, a matcher) is light
                # work at the least.
                priced = self.function_cost(fn, mro)
                if isinstance(priced, BodyError):
                    del self._cls_memo[key]
                    return priced
                result = max(result, LIGHT, priced)
                if result == HEAVY:
                    break
        self._cls_memo[key] = result
        return result

    def memoised(self, fn: FunctionInfo, depth: int = 0) -> bool | BodyError:
        """A function that returns a cached object for equal arguments: decorated with
        ``functools.cache``/``lru_cache``, or returning an entry of a module-level dict it
        fills (``if key in _CACHE: return _CACHE[key]``), directly or through a local that
        holds the entry (``cached = _CACHE.get(key)``), also when a module-level helper
        looked it up (``cached = _lookup(key); if cached is not None: return cached``)."""
        key = fn.qualname
        found = self._memo_fn.get(key)
        if found is None:
            if any(d in MEMOISERS for d in fn.facts.decorators):
                found = True
            else:
                self._memo_fn[key] = False  # recursion guard
                entry = self._returns_entry(fn, depth)
                if isinstance(entry, BodyError):
                    del self._memo_fn[key]
                    return entry
                found = entry
            self._memo_fn[key] = found
        return found

    def _returns_entry(self, fn: FunctionInfo, depth: int) -> bool | BodyError:
        body = fn.facts.load()
        if isinstance(body, BodyError):
            return body
        local = {p.name for p in body.params}
        effects = body.effects
        local.update(e.name for e in effects if e.kind == "local")
        holding: set[str] = set()  # locals assigned an entry of a module-level dict
        globals_ = fn.module.facts.names
        for eff in effects:
            v = eff.value
            if v is None:
                continue
            if eff.kind == "local":
                entry = _global_entry(v, local, globals_) or self._helper_entry(v, fn, depth)
                if isinstance(entry, BodyError):
                    return entry
                if entry:
                    holding.add(eff.name)
            elif eff.kind == "return" and (
                _global_entry(v, local, globals_) or (v.kind == "name" and v.name in holding)
            ):
                return True
        return False

    def _helper_entry(self, call: Expr, fn: FunctionInfo, depth: int) -> bool | BodyError:
        """``_lookup(key)``: a call of a module-level function that returns a cache entry."""
        if call.kind != "call" or call.receiver is not None or not call.name or depth >= 2:
            return False
        target = self.index.resolve(fn.module, call.name)
        if target is None or target.kind != "function":
            return False
        helper = self.index.function_info(target.name)
        if helper is None or helper.owner is not None:
            return False
        return self.memoised(helper, depth + 1)

    def function_cost(self, fn: FunctionInfo, mro: tuple[str, ...]) -> Priced:
        """The highest cost of the work ``fn`` does: what it stores, registers, returns or
        leaves in a local (work done into a local counts for the function that does it),
        and the methods it calls on ``self``. A memoised factory costs nothing."""
        if fn.owner is None:
            memo = self.memoised(fn)
            if memo is not False:
                return NONE if memo is True else memo
        return self.body_cost(fn, mro)

    def memo_routes(self, call: Expr | None, module: Module) -> tuple[MemoRoute, ...] | BodyError:
        """How ``call`` reaches a memoised module-level function: directly (``get_rope(...)``)
        or through plain wrappers whose every ``return`` calls one (``get_rope_wrapper(...)``
        returning ``get_rope(...)``, or a local alias that picks among such functions:
        ``f = a if cond else b; return f(...)``). () when it reaches none (or the error of a
        body that deciding it had to read)."""
        if call is None or call.kind != "call" or call.receiver is not None or not call.name:
            return ()
        target = self.index.resolve(module, call.name)
        if target is None or target.kind != "function":
            return ()
        fn = self.index.function_info(target.name)
        if fn is None or fn.owner is not None:
            return ()
        return self._routes(fn, 0)

    def _routes(self, fn: FunctionInfo, depth: int) -> tuple[MemoRoute, ...] | BodyError:
        key = fn.qualname
        found = self._route_memo.get(key)
        if found is not None:
            return found
        self._route_memo[key] = ()  # recursion guard
        memo = self.memoised(fn)
        routes: tuple[MemoRoute, ...] | BodyError = ()
        if isinstance(memo, BodyError):
            routes = memo
        elif memo:
            body = fn.facts.load()
            routes = body if isinstance(body, BodyError) else (MemoRoute(key, fn, body.params),)
        elif depth < MAX_WRAPPERS:
            routes = self._wrapper_routes(fn, depth)
        if isinstance(routes, BodyError):
            del self._route_memo[key]  # taken back: a later pricing meets the error again
            return routes
        self._route_memo[key] = routes
        return routes

    def _wrapper_routes(self, fn: FunctionInfo, depth: int) -> tuple[MemoRoute, ...] | BodyError:
        """The routes of a wrapper: each ``return`` must call a memoised function or another
        such wrapper (an external callable among an alias's choices is an opaque route).
        The shape is checked first, so a function that is no wrapper resolves no name."""
        body = fn.facts.load()
        if isinstance(body, BodyError):
            return body
        aliases: dict[str, list[Expr | None]] = {}
        for e in body.effects:
            if e.kind == "local":
                aliases.setdefault(e.name, []).append(e.value)
        params = {p.name for p in body.params}
        calls: list[tuple[Expr, list[str]]] = []  # each return's call and its callee's names
        for e in body.effects:
            if e.kind != "return":
                continue
            ret = e.value
            if ret is None or ret.kind != "call" or ret.receiver is not None or not ret.name:
                return ()
            if ret.name in params:
                return ()  # a callable passed in
            names = _alias_names(aliases[ret.name]) if ret.name in aliases else [ret.name]
            if not names:
                return ()
            calls.append((ret, names))
        if not calls:
            return ()
        hop_params = body.params
        rebound = frozenset(aliases)
        out: list[MemoRoute] = []
        for ret, names in calls:
            hop = Hop(fn.qualname, hop_params, rebound, ret)
            for name in names:
                target = self.index.resolve(fn.module, name)
                if ret.name in aliases and (
                    target is None or target.kind not in ("function", "external")
                ):
                    continue  # the alias's test (a flag)
                if target is not None and target.kind == "external":
                    out.append(MemoRoute(target.name, None, (), (hop,)))
                    continue
                inner = self.index.function_info(target.name) if target is not None else None
                if inner is None or inner.owner is not None:
                    return ()
                routes = self._routes(inner, depth + 1)
                if isinstance(routes, BodyError) or not routes:
                    return routes
                out += [MemoRoute(r.factory, r.fn, r.params, (hop, *r.hops)) for r in routes]
        if not any(r.fn is not None for r in out):
            return ()
        return tuple(out)

    def callee_of(self, module: Module, eff: Effect, mro: tuple[str, ...]) -> FunctionInfo | None:
        """The method a call effect runs on the object: through the class it names
        (``Base.method(self)``), else through the object's MRO."""
        if eff.detail == "explicit":
            owner = self.index.resolve(module, eff.target)
            if owner is None or owner.kind != "class":
                return None
            return self.index.lookup_method(self.index.mro(owner.name).classes, eff.name)
        return self.index.lookup_method(mro, eff.name) if mro else None

    def body_cost(self, fn: FunctionInfo, mro: tuple[str, ...] = ()) -> Priced:
        """What running ``fn``'s body costs, a memoised function's too: the work a call
        does when its cache holds nothing for its arguments."""
        key = (fn.qualname, mro[0] if mro else "")
        if key in self._fn_memo:
            return self._fn_memo[key]
        body = fn.facts.load()
        if isinstance(body, BodyError):
            return body
        self._fn_memo[key] = NONE  # recursion guard: a cycle adds nothing
        priced = self._effects_cost(fn, body, mro)
        if isinstance(priced, BodyError):
            del self._fn_memo[key]  # taken back: a later pricing meets the error again
            return priced
        self._fn_memo[key] = priced
        return priced

    def _effects_cost(self, fn: FunctionInfo, body: Body, mro: tuple[str, ...]) -> Priced:
        local_cost: dict[str, int] = {}
        result = NONE
        c: Priced
        for eff in body.effects:
            kind = eff.kind
            if kind == "local":
                c = self.expr_cost(eff.value, fn.module, mro, local_cost)
                if isinstance(c, BodyError):
                    return c
                local_cost[eff.name] = c  # (NONE too: a local made here, ``_made_here``)
            elif kind in ("assign", "return", "buffer", "mutate"):
                c = self.expr_cost(eff.value, fn.module, mro, local_cost)
            elif kind == "call":
                callee = self.callee_of(fn.module, eff, mro)
                c = NONE if callee is None else self.function_cost(callee, mro)
            elif kind == "objattr" and eff.value is not None and "." not in eff.name:
                # a local container filled: it holds what went in
                c = self.expr_cost(eff.value, fn.module, mro, local_cost)
                if isinstance(c, BodyError):
                    return c
                if c:
                    local_cost[eff.name] = max(local_cost.get(eff.name, NONE), c)
                continue
            else:
                continue
            if isinstance(c, BodyError):
                return c
            if c > result:
                result = c
                if result == HEAVY:
                    break
        return result


def _made_here(e: Expr, locals_: Costs) -> bool:
    """``e``'s data is what the function being priced computed from the values it holds
    (constants, its locals, calls and operations on those), priced no higher than light: no
    argument or attribute from elsewhere, whose size the function does not know."""
    if e.kind == "const":
        return True
    if e.kind == "name":
        return locals_.get(e.name, HEAVY) <= LIGHT
    if e.kind == "call":
        recv = e.receiver
        if recv is not None and recv.kind == "name" and recv.name not in locals_:
            recv = None  # ``np.array(...)``: a module's function, called on its arguments
        if recv is not None and not _made_here(recv, locals_):
            return False
        return bool(e.name) and all(_made_here(c, locals_) for c in e.children)
    if e.kind in ("op", "subscript"):
        parts = [*e.children, *((e.receiver,) if e.receiver is not None else ())]
        return all(_made_here(c, locals_) for c in parts)
    return False


def _highest(a: Priced, b: Priced) -> Priced:
    """The higher of two costs; the error when either is one (``a``'s first)."""
    if isinstance(a, BodyError):
        return a
    if isinstance(b, BodyError):
        return b
    return max(a, b)


def _alias_names(values: list[Expr | None]) -> list[str]:
    """The names a local alias of a callable may hold: every binding a name, or a choice of
    names (``f = a if cond else b``); [] for anything else (``f = None``, a call)."""
    out: list[str] = []
    for v in values:
        if v is None:
            return []
        if v.kind == "name":
            out.append(v.name)
        elif v.kind == "op" and not v.name and v.children:
            if any(c.kind != "name" for c in v.children):
                return []
            out += [c.name for c in v.children]
        else:
            return []
    return out


def _global_entry(v: Expr, local: set[str], globals_: frozenset[str]) -> bool:
    """``CACHE[key]`` or ``CACHE.get(key)`` where ``CACHE`` is neither a parameter nor a
    local (for ``.get``: a name the module binds by assignment, not an import)."""
    recv = v.receiver
    if recv is None or recv.kind != "name" or recv.name in local:
        return False
    if v.kind == "subscript":
        return True
    return v.kind == "call" and v.attr == "get" and recv.name in globals_
