"""What initlint knows of torch, numpy and I/O without importing them: which calls build
tensors or read files, which torch.nn classes register which parameters and buffers (and
the keywords and sizes that switch them off), and how many numbers a tensor factory's
arguments make (docs/design.md, "Cost classes")."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from initlint.facts.model import Const, Expr
from initlint.simulation.levels import HEAVY, LIGHT, NONE, UNKNOWN
from initlint.simulation.values import Val, sized

# The libraries whose own callables built-in knowledge judges even where they are installed.
KNOWN_LIBRARIES = frozenset({"torch", "numpy"})
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
# Functions that write a file, or make a folder, at a path they are given: where the path
# is (its place among the positional arguments, its keyword). A test of whether it exists,
# after the construction wrote it, is decided by the construction.
FILE_WRITERS: dict[str, tuple[int, str]] = {
    "torch.save": (1, "f"),
    "numpy.save": (0, "file"),
    "numpy.savez": (0, "file"),
    "numpy.savez_compressed": (0, "file"),
    "safetensors.torch.save_file": (1, "filename"),
    "os.makedirs": (0, "name"),
    "os.mkdir": (0, "path"),
    "shutil.copy": (1, "dst"),
    "shutil.copy2": (1, "dst"),
    "shutil.copyfile": (1, "dst"),
    "shutil.move": (1, "dst"),
    "urllib.request.urlretrieve": (1, "filename"),
}
# Methods on an expensive value that only read metadata.
METADATA_METHODS = frozenset(
    """size dim numel item tolist nelement element_size stride data_ptr is_contiguous
    get_device ndimension keys values items""".split()
)
# What torch's modules and tensors keep of how they were configured: reading one reads no
# weight (``self.model.fc.in_features`` before the part is swapped).
CONFIG_ATTRS = frozenset(
    """in_features out_features in_channels out_channels kernel_size stride padding dilation
    groups num_features num_embeddings embedding_dim padding_idx normalized_shape embed_dim
    num_heads shape dtype device""".split()
)
# What a tensor keeps besides its numbers, set in place: whether autograd tracks it
# (``self.weight.requires_grad = False`` reads none of its numbers).
TENSOR_FLAGS = frozenset({"requires_grad"})
# torch.nn.Module's methods that change the module they are called on in place (or return
# it) and hand none of its parts to other code: ``net.eval()``, ``net.load_state_dict(sd)``.
SELF_METHODS = frozenset(
    """eval train to cuda cpu float half double bfloat16 requires_grad_ load_state_dict
    zero_grad share_memory""".split()
)
# torch's reparametrisations whose named part (``weight`` unless ``name=`` says otherwise)
# is computed anew from other parameters at every forward, or on every access: numbers
# written into it in place are lost. (The old ``spectral_norm`` is not one: its ``weight``
# shares its storage with ``weight_orig``, so a fill reaches the parameter.)
REPARAMETRISATIONS = {
    "torch.nn.utils.weight_norm.weight_norm": "weight_norm",
    "torch.nn.utils.weight_norm": "weight_norm",
    "torch.nn.utils.parametrizations.weight_norm": "weight_norm",
    "torch.nn.utils.parametrizations.spectral_norm": "spectral_norm",
}
# The tables in which torch keeps a module's parts: reading one reads every part.
PART_TABLES = frozenset("_modules _parameters _buffers __dict__".split())
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


# The number of dimensions of the weights those classes register that are not vectors.
_WEIGHT_DIMS: dict[str, int] = {
    "Linear": 2,
    "LazyLinear": 2,
    "Embedding": 2,
    "EmbeddingBag": 2,
    "Bilinear": 3,
    **{
        f"{kind}{d}d": d + 2
        for kind in ("Conv", "ConvTranspose", "LazyConv", "LazyConvTranspose")
        for d in (1, 2, 3)
    },
}
# torch.nn.Module's methods that change the module in place and return it: ``x =
# Linear(...).to(device)`` holds the object ``Linear(...)`` built; ``self.fc =
# self.fc.half()`` stores the object already there.
MODULE_SELF_METHODS = frozenset(
    "to cuda cpu xpu half float double bfloat16 type train eval requires_grad_ share_memory".split()
)
# Norms whose vectors take the shape they are given (``normalized_shape``), of any length.
_SHAPED_NORMS = frozenset({"LayerNorm", "RMSNorm"})
# The registrations of those classes that are buffers, not parameters.
TORCH_BUFFERS = frozenset({"running_mean", "running_var"})


def torch_dims(qualname: str, param: str) -> int | None:
    """How many dimensions what the torch.nn class ``qualname`` registers as ``param`` has;
    None when not known."""
    head, _, last = qualname.rpartition(".")
    if not head.startswith("torch.nn") or param not in TORCH_PARAMS.get(last, {}):
        return None
    if last in _SHAPED_NORMS:
        return None  # (``LayerNorm((8, 4))``: as many as the shape given)
    return 1 if torch_vector(qualname, param) else _WEIGHT_DIMS.get(last)


def torch_params(qualname: str) -> dict[str, tuple[str, ...]]:
    """What the torch.nn class ``qualname`` registers (see TORCH_PARAMS); {} if unknown."""
    head, _, last = qualname.rpartition(".")
    return TORCH_PARAMS.get(last, {}) if head.startswith("torch.nn") else {}


# Calls that load a model or its weights, whatever the class they are called on.
# (A factory that builds whatever class a config names, ``from_config_dict``, is no load:
# priced by what its body builds, unknown where that is not known.)
LOADERS = frozenset("from_pretrained from_config from_single_file".split())
# Factories whose size arguments decide whether the tensor is small (a light tensor).
SIZED_FACTORIES = frozenset("zeros ones empty full rand randn".split())
SCALAR_FACTORIES = frozenset("tensor as_tensor scalar_tensor".split())
# Factories that fill what they make with random draws: a fill, as an initialiser's is.
RANDOM_FACTORIES = frozenset("rand randn randint rand_like randn_like normal".split())
# Tensor methods whose result has more dimensions than the tensor they are called on.
GROWING_METHODS = frozenset("outer ger kron repeat tile".split())
# A tensor's own factories: a new tensor of the sizes they are given (the tensor they are
# called on gives only its dtype and device), and the torch factory that takes them alike.
NEW_FACTORIES = {"new_zeros": "zeros", "new_ones": "ones", "new_empty": "empty", "new_full": "full"}


def repeated_numel(call: Expr, bound: Bound) -> int | None:
    """How many times ``t.repeat(a, b)`` or ``t.tile((a, b))`` repeats the tensor it is
    called on, where every count is written out (at least that many numbers, whatever the
    tensor holds); None otherwise."""
    args = positional_values(call)
    if len(args) == 1 and args[0].kind == "op" and args[0].name == "tuple":
        args = args[0].children
    return numel(args, written_only(bound)) if args else None


# Factories whose result always has one dimension, of a length their arguments give.
RANGES = frozenset("arange linspace logspace randperm".split())
# Calls that make an array of the values they are given, without sizes of their own: an
# array of what a function computed from the values it holds is no bigger than they are.
DATA_CONVERSIONS = frozenset(
    """numpy.array numpy.asarray numpy.concatenate numpy.stack torch.tensor torch.as_tensor
    torch.Tensor torch.from_numpy torch.cat torch.concat torch.concatenate torch.stack""".split()
)
# The conversions among those that make an array of the values a display holds, one number
# per item (not ``cat`` or ``stack``, whose items are arrays themselves).
FROM_VALUES = frozenset("numpy.array numpy.asarray torch.tensor torch.as_tensor".split())
# torch's legacy tensor constructors: ``torch.Tensor(*sizes)`` or ``torch.Tensor(data)``.
LEGACY_TENSORS = frozenset(
    """Tensor FloatTensor DoubleTensor HalfTensor BFloat16Tensor LongTensor IntTensor
    ShortTensor ByteTensor CharTensor BoolTensor""".split()
)
# A tensor whose every number the code writes out, at most this many (``torch.tensor([0,
# shard])``), is LIGHT: a few bytes.
SMALL_NUMEL = 16
# A tensor, or a torch module's weight, whose every size the code writes out as a number is
# priced by what it holds, known exactly: LIGHT below a mebibyte of float32 numbers
# (``nn.Conv2d(3, 64, 7)``, 37 KiB; ``torch.zeros(64, 64)``), HEAVY from there
# (``nn.Embedding(1024, 768)``, 3 MiB). A size the constructed class's own argument gives,
# whose default is a number written in the code (``hidden=128``), is that number: the
# class built from its defaults holds what it says (``Val.default``). Any other size that
# comes from an argument's value stands for any size (a model size the caller sets): such a
# tensor is LIGHT only when it holds at most one element.
WRITTEN_NUMEL = 1 << 18

# torch classes whose instances hold no data yet: the placeholders of torch's ``Lazy*``
# modules, materialised at the first forward. Building one is light work.
UNINITIALIZED = frozenset("UninitializedParameter UninitializedBuffer".split())

# The constants the names of the frame being simulated are bound to (its arguments and
# locals): a size argument ``torch.empty((out, in))`` with ``out`` bound to 0 is no data.
# A dotted key ``self.<attr>`` is an attribute the construction set to a number written in
# the code (``written_bound``): a size read from it is written out as the number is.
Bound = Mapping[str, Val]
NO_BOUND: Bound = {}


def written_bound(attrs: Mapping[str, Val], written: Iterable[str]) -> dict[str, Val]:
    """The ``self.<attr>`` entries of a bound for the attributes ``written`` names (one set
    from an argument of the class's own read at its default by ``written_only``)."""
    return {f"self.{a}": attrs[a] for a in written if a in attrs}


def unshadowed(value: Expr | None, bound: Bound) -> Bound:
    """``bound`` for pricing ``value``, less the arguments read at their defaults
    (``Val.default``) that a comprehension or a lambda in it binds anew (``[nn.Linear(d, d)
    for d in sizes]``): every one where a comprehension with several loops or a lambda does
    (their names are not kept)."""
    if value is None or not any(v.default is not None for v in bound.values()):
        return bound
    names: set[str] = set()
    for e in value.nodes():
        if e.kind == "op" and e.name == "comp":
            names.add(e.attr)
        elif e.kind == "op" and (e.name == "lambda" or not e.name):
            return {k: v for k, v in bound.items() if v.default is None}
    if not names:
        return bound
    return {k: v for k, v in bound.items() if k not in names or v.default is None}


def written_only(bound: Bound) -> Bound:
    """The entries of ``bound`` that hold numbers written in the code (its dotted keys), and
    the constructed class's own arguments at their defaults (``Val.default``)."""
    if not bound:
        return bound
    return {k: sized(v) for k, v in bound.items() if "." in k or v.default is not None}


def positional_values(call: Expr) -> tuple[Expr, ...]:
    """The positional arguments of ``call`` (``value`` counts them; the rest are keywords)."""
    return call.positional()


def parameter_data(value: Expr) -> Expr:
    """What ``nn.Parameter(t)`` wraps, its first argument ``t``; any other value itself."""
    if value.kind == "call" and value.name.rpartition(".")[2] == "Parameter" and value.children:
        return value.children[0]
    return value


# The containers of tensors torch registers items of (``nn.ParameterList([...])``).
TENSOR_LISTS = frozenset({"ParameterList"})


def tensor_list(value: Expr) -> bool:
    """Whether ``value`` builds a list of tensors (``nn.ParameterList([...])``)."""
    return value.kind == "call" and value.name.rpartition(".")[2] in TENSOR_LISTS


def drawn_value(value: Expr) -> bool:
    """Whether ``value`` makes its tensor from random draws: ``torch.randn(a, b)``, scaled
    (``torch.randn(a, b) / math.sqrt(a)``), also as ``nn.Parameter(torch.randn(...))``
    (``torch.empty`` would hold the place), or a ``ParameterList`` of such, written out or
    made in a loop."""
    if tensor_list(value):
        items = value.children[0] if len(value.children) == 1 and value.value is None else None
        if items is not None and items.kind == "op" and items.name in ("comp", ""):
            # (what each item of the loop becomes: a comprehension's last part)
            return bool(items.children) and drawn_value(items.children[-1])
        if items is not None and items.kind == "op" and items.name == "tuple":
            return bool(items.children) and all(drawn_value(c) for c in items.children)
        return False
    value = parameter_data(value)
    if value.kind == "op" and value.name in ("*", "/") and value.children:
        # (``torch.randn(a, b) / math.sqrt(a)``: scaled draws are draws)
        return drawn_value(value.children[0])
    if value.kind != "call":
        return False
    head, _, last = value.name.rpartition(".")
    return head == "torch" and last in RANDOM_FACTORIES


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
    if _vectors_only(last):
        return LIGHT  # a norm layer: it owns only vectors (weight, bias, running stats)
    if call is not None and _vector_weight(last, call, bound):
        return LIGHT  # ``nn.Linear(width, 1)``: a weight of one row is a vector
    if call is not None and _few_weights(last, call, bound):
        return LIGHT  # ``nn.Linear(2, 2)``: a few numbers, every size written out
    sizes = _weight_sizes(last, call) if call is not None else None
    if sizes is not None and _one_size(sizes, bound):
        return UNKNOWN  # ``nn.Linear(width, 2)``: a few vectors of a width not known here
    if not params or call is None or not call.keywords:
        return HEAVY
    keywords = _kw_consts(call, bound)
    if all(switched_off(offs, keywords) for offs in params.values()):
        return LIGHT
    return HEAVY


# Classes whose weight has exactly the dimensions of its two size arguments.
_MATRIX_WEIGHTS = frozenset({"Linear", "Embedding", "EmbeddingBag"})
_CONVS = frozenset(f"{kind}{d}d" for kind in ("Conv", "ConvTranspose") for d in (1, 2, 3))


def light_by_kind(last: str, call: Expr) -> bool:
    """Whether the torch module ``call`` builds is light for its kind, whatever its sizes:
    a norm layer (it owns only vectors), or one whose weight is a vector (``nn.Linear(width,
    1)``), not for what its sizes, written out, hold."""
    return _vectors_only(last) or (
        _vector_weight(last, call, NO_BOUND) and _written_weight_numel(last, call, NO_BOUND) is None
    )


def _vectors_only(last: str) -> bool:
    """Whether the torch module ``last`` registers only vectors (a norm layer's weight,
    bias and running statistics)."""
    params = TORCH_PARAMS.get(last, {})
    return bool(params) and all(p in TORCH_VECTORS.get(last, ()) for p in params)


def _vector_weight(last: str, call: Expr, bound: Bound) -> bool:
    """Whether the weight ``call`` builds has at most one size other than 1, which makes it
    a vector of that size (``nn.Linear(width, 1)``, a scoring head; ``nn.Conv2d(c, 1, 1)``;
    ``nn.Conv1d(1, 1, taps)``, a filter): its numbers grow with one width, as a bias does,
    not with its square."""
    sizes = _weight_sizes(last, call)
    return sizes is not None and sum(s is None or _int(s, bound) != 1 for s in sizes) <= 1


def _few_weights(last: str, call: Expr, bound: Bound = NO_BOUND) -> bool:
    """Whether the weight ``call`` builds holds fewer than WRITTEN_NUMEL numbers, every size
    of it written out as a number (``nn.Linear(2, 2)``, ``nn.Conv2d(3, 64, 7)``, or read
    from an attribute set to one: ``nn.Conv2d(3, self.inplanes, 7)`` after ``self.inplanes
    = 64``, or the constructed class's own argument at its default), as a factory's of
    written-out sizes is (``tensor_cost``). A size from another argument's value stands
    for any size."""
    n = _written_weight_numel(last, call, bound)
    return n is not None and n < WRITTEN_NUMEL


def _written_weight_numel(last: str, call: Expr, bound: Bound) -> int | None:
    """How many numbers the weight the torch module ``call`` builds holds, every size of it
    written out as a number; None when a size is not (or the module has no such weight)."""
    sizes = _weight_sizes(last, call)
    if sizes is None or any(s is None for s in sizes):
        return None
    return numel(tuple(s for s in sizes if s is not None), written_only(bound))


def written_numel(name: str, call: Expr, bound: Bound = NO_BOUND) -> int:
    """How many numbers the torch build ``call`` of ``name`` holds when every size of it is
    written out as a number (``nn.Linear(192, 768)``'s weight, ``torch.zeros(64, 64)``), what
    the light price of each such build is given for; 0 for any other call. Several of them
    in one value add up (``nn.Sequential(nn.Linear(192, 768), nn.Linear(768, 192))``)."""
    head, _, last = name.rpartition(".")
    n: int | None = None
    if head == "torch" and last in SIZED_FACTORIES and (args := positional_values(call)):
        n = numel(_shape_args(last, args, bound)[0], written_only(bound))
    elif head == "torch" and last in RANGES and (args := positional_values(call)):
        n = range_numel(last, call, written_only(bound))
    elif head.startswith("torch.nn"):
        n = _written_weight_numel(last, call, bound)
    return n or 0


def _shape_args(
    last: str, args: tuple[Expr, ...], bound: Bound
) -> tuple[tuple[Expr, ...], bool, Val | None]:
    """The size arguments of a call of the sized factory ``last`` (``args`` its positional
    ones): its one shape argument (a tuple display, a local holding a pack of sizes, or
    ``full``'s first), or every positional one; whether they are one shape written as a
    tuple or held in a local; the pack that local holds."""
    first = args[0]
    shaped = first.kind == "op" and first.name == "tuple"
    v = bound.get(first.name) if first.kind == "name" else None
    packed = v is not None and v.kind == "args"  # a shape held in a local
    if last == "full" or shaped or packed:
        args = args[:1]  # one shape argument
    return args, shaped or packed, v


def _weight_sizes(last: str, call: Expr) -> list[Expr | None] | None:
    """The sizes of the weight the torch module ``call`` builds, as its arguments give them
    (None for one not given); None for a module whose weight is not a matrix or a
    convolution's kernel, or a convolution given no kernel size."""
    if last not in _MATRIX_WEIGHTS and last not in _CONVS:
        return None
    given = keyword_values(call)
    positional = positional_values(call)

    def size(position: int, keyword: str) -> Expr | None:
        return given.get(keyword) or (positional[position] if position < len(positional) else None)

    sizes = [size(p, k) for p, k in TORCH_SHAPES[last]["weight"]]
    if last in _CONVS:
        kernel = size(2, "kernel_size")
        if kernel is None:
            return None
        sizes += _sizes_of(kernel, int(last[-2]))
    return sizes


def _sizes_of(kernel: Expr, dims: int) -> list[Expr]:
    """The sizes a kernel argument gives a convolution of ``dims`` dimensions: each item
    of a tuple, or the one number for each dimension."""
    if kernel.kind == "op" and kernel.name == "tuple":
        return list(kernel.children)
    return [kernel] * dims


_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}


def int_value(e: Expr, bound: Bound = NO_BOUND) -> int | None:
    """The integer ``e`` is, written out or held by a name ``bound`` holds (``-64``,
    ``n`` after ``n = 128``); None when not known."""
    if e.kind == "op" and not e.name and len(e.children) == 1:
        inner = _int(e.children[0], bound)  # (a unary minus)
        return None if inner is None else -inner
    return _int(e, bound)


def whole_value(e: Expr, bound: Bound = NO_BOUND) -> int | None:
    """The whole number ``e`` is (``int_value``, not below 0): a size; None for any other."""
    n = int_value(e, bound)
    return n if n is not None and n >= 0 else None


def _int(e: Expr, bound: Bound) -> int | None:
    """The integer ``e`` evaluates to over the bound constants, or None if not known."""
    v: object
    if e.kind == "const":
        v = e.value
    elif e.kind == "name" or (e.kind == "attr" and e.name.startswith("self.")):
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


def _given_data(e: Expr) -> bool:
    """Whether ``torch.tensor(e)`` copies values of a size not known here: a name or an
    attribute (data the caller holds, or a list of such values made here), or a list or
    tuple display of them (``torch.tensor([mean])``: as many numbers as the values hold,
    which may be one each). Unknown, never cheap; a display of numbers is sized by
    ``literal_numel`` before this."""
    if e.kind in ("attr", "name"):
        return True
    if e.kind == "op" and e.name == "tuple" and e.children:
        return all(_given_data(c) for c in e.children)
    return False


def tensor_cost(last: str, call: Expr, bound: Bound = NO_BOUND) -> int:
    """HEAVY for a tensor factory, LIGHT when its arguments make it a tensor of a few
    numbers written out in the code: a scalar, a literal list of at most SMALL_NUMEL numbers
    (``torch.tensor([0, shard])``, also through a local holding the list); or a sized one of
    at most one element (``torch.zeros(1)``, ``torch.empty(0)``, a shape whose size argument
    is bound to 0), or of fewer than WRITTEN_NUMEL whose sizes are all written out
    (``torch.zeros(64, 64)``). UNKNOWN for one dimension of a size not known here
    (``torch.ones(hidden)``, ``torch.zeros(max_num_tokens)``, ``torch.arange(0, dim, 2)``).
    Any other size (``torch.empty(rows, cols)``, ``torch.zeros(1024, 1024)``,
    ``torch.zeros(n)`` with ``n`` bound to 4) is HEAVY. A range of bounds written out
    (``torch.arange(512)``, by position or keyword) is priced by what it counts."""
    if last in RANGES:
        n = range_numel(last, call, written_only(bound))
        if n is not None and n < WRITTEN_NUMEL:
            return LIGHT
    args = positional_values(call)
    if not args:
        return HEAVY
    first = args[0]
    if last in SCALAR_FACTORIES:
        n = literal_numel(first, bound)
        if n is not None:
            return LIGHT if n <= SMALL_NUMEL else HEAVY
        if _given_data(first):
            return UNKNOWN  # a copy of data the caller holds, of a size not known here
        return HEAVY
    if last in SIZED_FACTORIES:
        args, one_shape, v = _shape_args(last, args, bound)
        n = numel(args, bound)
        written = numel(args, written_only(bound))
        if (n is not None and n <= 1) or (
            written is not None and written < WRITTEN_NUMEL and n in (None, written)
        ):
            return LIGHT  # (at most one element, or a few whose every size is written out)
        one = _one_dimension(first, v, bound) if one_shape else _one_size(args, bound)
        if n is None and one:
            # one dimension of a size not known here: a bias or a norm's weight (light), or
            # a table of vocabulary or positions (heavy)
            return UNKNOWN
    if last in RANGES and not all(_int(a, bound) is not None for a in args):
        return UNKNOWN  # a range has one dimension too
    return HEAVY


def range_numel(last: str, call: Expr, bound: Bound) -> int | None:
    """How many float32 numbers' room the range factory ``last`` takes (``range_count``
    times the room of each number); None when its count is not known."""
    counted = range_count(last, call, bound)
    return None if counted is None else counted[0] * counted[1]


def range_count(last: str, call: Expr, bound: Bound) -> tuple[int, int] | None:
    """How many numbers the range factory ``last`` makes (``arange(end)``,
    ``arange(start, end, step)``, ``linspace(start, end, steps)``, ``randperm(n)``, each
    bound by position or by keyword) where its counts are integers known over ``bound``,
    and the room of each in float32 numbers (``dtype_room``: an integer range is int64,
    torch's default for integer bounds). None otherwise (a float bound or step, a spread
    argument)."""
    if any(k.startswith("*") for k in call.keywords):
        return None
    args = positional_values(call)
    given = keyword_values(call)
    dtype = given.get("dtype")
    if last in ("linspace", "logspace"):
        steps = given.get("steps") or (args[2] if len(args) >= 3 else None)
        n = int_value(steps, bound) if steps is not None else None
        return None if n is None else (n, dtype_room(dtype, integers=False))
    if last == "randperm":
        size = given.get("n") or (args[0] if args else None)
        n = int_value(size, bound) if size is not None else None
        return None if n is None else (n, dtype_room(dtype, integers=True))
    names = ("end",) if len(args) == 1 else ("start", "end", "step")
    bounds = dict(zip(names, args, strict=False)) | {
        k: given[k] for k in ("start", "end", "step") if k in given
    }
    start, end, step = (
        int_value(bounds[k], bound) if k in bounds else default
        for k, default in (("start", 0), ("end", None), ("step", 1))
    )
    if start is None or end is None or step is None or step == 0:
        return None
    return len(range(start, end, step)), dtype_room(dtype, integers=True)


# How many float32 numbers' room one number of a dtype takes, by the end of its name.
_NARROW = ("8", "16", "32", "float", "half", "int", "bool", "short")
_WIDE = ("64", "long", "double", "cfloat")


def dtype_room(dtype: Expr | None, integers: bool) -> int:
    """How many float32 numbers' room one number of ``dtype`` takes (the dtype a factory
    is given; when none, torch's default: int64 for ``integers``, float32 otherwise):
    1 for 32 bits or fewer, 2 for 64, 4 for complex128; 2 for a dtype not known here (a
    local or an argument: not known to be narrow)."""
    if dtype is None:
        return 2 if integers else 1
    name = dtype.name if dtype.kind in ("attr", "name") else ""
    if name.endswith(("complex128", "cdouble")):
        return 4
    if dtype.kind == "attr" and name.endswith(_NARROW) and not name.endswith(_WIDE):
        return 1
    return 2


# The ends of the names of torch's integer dtypes (bool among them: it promotes as one).
_INTEGERS = ("int", "int8", "int16", "int32", "int64", "long", "short", "bool")


def dtype_integer(dtype: Expr | None, integers: bool) -> bool:
    """Whether numbers of ``dtype`` are integers (when none is given: ``integers``, torch's
    default for what is made); a dtype not known here is taken as a float's, which wins
    when numbers of the two kinds meet."""
    if dtype is None:
        return integers
    return dtype.kind == "attr" and dtype.name.endswith(_INTEGERS)


def _numpy_random_cost(last: str, call: Expr, bound: Bound) -> int:
    """A draw of numpy's: sized by its ``size`` (``uniform(-b, b, size=shape)``, or the
    positional place ``_SIZE_AT`` gives it), or by the positional sizes of ``rand`` and
    ``randn``, as a tensor factory of that shape is; a number when no size is given
    (``normal(0, 1)``, ``randn()``) and every parameter a number written out: light.
    HEAVY for a function not listed."""
    positional = call.positional()
    if last in ("rand", "randn"):
        return tensor_cost(last, call, bound) if positional else LIGHT
    at = _SIZE_AT.get(last)
    if at is None:
        return HEAVY
    size = positional[at] if len(positional) > at else None
    for keyword, value in zip(call.keywords, call.children[len(positional) :], strict=False):
        if keyword == "size":
            size = value
        elif not keyword or keyword.startswith("*"):
            return HEAVY  # (a spread pack may give the size)
    if size is None or (size.kind == "const" and size.value is None):
        # (one number, unless a parameter is an array: the draw takes its shape then)
        given = [c for c in call.children if c is not size]
        return LIGHT if all(_a_number(c, bound) for c in given) else UNKNOWN
    sized = replace(call, children=(size,), keywords=(), value=1)
    return tensor_cost("zeros", sized, bound)


def _a_number(e: Expr, bound: Bound) -> bool:
    """Whether ``e`` is one number: written out (``1.0``, ``-1``), or bound to one."""
    if e.kind == "op" and not e.name and len(e.children) == 1:
        e = e.children[0]  # (a sign)
    if e.kind == "name":
        held = bound.get(e.name)
        return held is not None and held.kind == "const" and _number(held.value)
    return e.kind == "const" and _number(e.value)


# Where numpy's draws take their ``size`` among their positional arguments.
_SIZE_AT = {
    "normal": 2,
    "uniform": 2,
    "randint": 2,
    "binomial": 2,
    "beta": 2,
    "gamma": 2,
    "lognormal": 2,
    "laplace": 2,
    "logistic": 2,
    "poisson": 1,
    "exponential": 1,
    "standard_normal": 0,
    "random": 0,
    "random_sample": 0,
    "sample": 0,
    "ranf": 0,
}


def _one_size(sizes: Sequence[Expr | None], bound: Bound) -> bool:
    """Whether the sizes have one dimension besides those of size 1 (``(1, n)`` holds the n
    numbers of a vector), or besides a few written out as numbers where that one is what an
    argument gives (``(n, 2)``, two such vectors): its numbers grow with one width, as a
    vector's do, whatever that width is."""
    # (the few rows a number written in the code, not a default a caller may change)
    written = {k: v for k, v in bound.items() if "." in k and v.default is None}
    widths, times, given = 0, 1, False
    for s in sizes:
        if s is not None and _int(s, bound) == 1:
            continue
        n = None if s is None else _int(s, written)
        if n is None:
            widths += 1
            given = s is not None and _given_size(s, bound)
        else:
            times *= n
    return widths == 1 and (times == 1 or (given and times <= SMALL_NUMEL))


def _given_size(e: Expr, bound: Bound) -> bool:
    """Whether the size ``e`` is what the frame's arguments or locals hold, not known here
    (``n``, ``2 * n``), rather than a name of the module (a constant it may write out)."""
    if e.kind == "name" or (e.kind == "attr" and e.name.startswith("self.")):
        held = bound.get(e.name)
        return held is not None and held.kind != "const"
    if e.kind == "op" and len(e.children) == 2 and e.name in _ARITH:
        given = [_given_size(c, bound) for c in e.children]  # (each once: trees run deep)
        if not any(given):
            return False
        return all(g or _int(c, bound) is not None for g, c in zip(given, e.children, strict=True))
    return False


def _one_dimension(shape: Expr, held: Val | None, bound: Bound) -> bool:
    """Whether a shape written as a tuple (or held in a local) has exactly one dimension
    besides those of size 1."""
    if held is not None:
        return sum(not (i.kind == "const" and i.value == 1) for i in held.items) == 1
    if any(c.kind == "op" and c.name == "*" for c in shape.children):
        return False
    return _one_size(shape.children, bound)


def legacy_sized(name: str, call: Expr) -> bool:
    """``torch.Tensor(out, in)``, ``torch.FloatTensor(n, *k)``: the legacy constructors given
    sizes (two or more, or one unpacked) make an uninitialised tensor of that shape; given
    one value they convert data (``torch.Tensor([1, 2])``) or make a vector."""
    head, _, last = name.rpartition(".")
    if head != "torch" or last not in LEGACY_TENSORS:
        return False
    args = positional_values(call)
    return len(args) >= 2 or call.keywords[:1] == ("*",)


def library_cost(name: str, call: Expr | None = None, bound: Bound = NO_BOUND) -> int:
    """What calling the library callable ``name`` costs, by what initlint knows of torch,
    numpy and I/O (``call`` holds the arguments, read for a tensor factory's sizes)."""
    if name in IO_CALLS:
        return HEAVY
    head, _, last = name.rpartition(".")
    if last in LOADERS:
        return HEAVY
    if head.startswith("pandas") and last.startswith("read_"):
        return HEAVY
    if head == "torch" and (last in TORCH_OPS or last.endswith("_like")):
        return HEAVY if call is None else tensor_cost(last, call, bound)
    if last in UNINITIALIZED and head.startswith("torch.nn"):
        return LIGHT
    if head.startswith("torch.distributions") and last[:1].isupper():
        # (a distribution holds the parameters it is given: building one allocates nothing
        # of its own beyond broadcasting them, ``Normal(0, sigma)``)
        return LIGHT
    if head in (
        "torch.fft",
        "torch.linalg",
        "torch.special",
        "torch.random",
        "torch.distributions",
    ):
        return HEAVY
    if head == "numpy" and last in SIZED_FACTORIES and call is not None:
        # numpy takes the shape as one argument (``np.zeros((n, d), np.float32)``)
        shape = positional_values(call)[:1]
        return tensor_cost(last, replace(call, value=len(shape)), bound)
    if head == "numpy" and last in RANGES and call is not None:
        return tensor_cost(last, call, bound)  # a range has one dimension, as torch's does
    if head == "numpy.random":
        return HEAVY if call is None else _numpy_random_cost(last, call, bound)
    if head == "numpy" and last in NUMPY_OPS:
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
