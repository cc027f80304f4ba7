"""The cost model: which expressions allocate or compute real data (DESIGN §3)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from initlint.facts.model import Expr
from initlint.index.project import ClassInfo, FunctionInfo, Module, ProjectIndex

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


@dataclass
class CostModel:
    index: ProjectIndex
    expensive_calls: tuple[str, ...] = ()
    cheap_calls: tuple[str, ...] = ()
    _fn_memo: dict[tuple[str, str], bool] = field(default_factory=dict)
    _cls_memo: dict[str, bool] = field(default_factory=dict)

    def _matches(self, name: str, patterns: tuple[str, ...]) -> bool:
        return bool(patterns) and any(fnmatchcase(name, p) for p in patterns)

    def external_expensive(self, name: str) -> bool:
        if self._matches(name, self.cheap_calls):
            return False
        if self._matches(name, self.expensive_calls):
            return True
        if name in IO_CALLS:
            return True
        head, _, last = name.rpartition(".")
        if head.startswith("pandas") and last.startswith("read_"):
            return True
        if head == "torch" and (last in TORCH_OPS or last.endswith("_like")):
            return True
        if head in (
            "torch.fft",
            "torch.linalg",
            "torch.special",
            "torch.random",
            "torch.distributions",
        ):
            return True
        if head in ("numpy", "numpy.random") and (last in NUMPY_OPS or head == "numpy.random"):
            return True
        if head.startswith("torch.nn") and last[:1].isupper() and last not in CHEAP_NN:
            return "functional" not in head and "init" not in head
        return False

    def expr(
        self, e: Expr | None, module: Module, mro: tuple[str, ...], local_exp: frozenset[str]
    ) -> bool:
        """True when evaluating ``e`` computes or allocates real data."""
        if e is None:
            return False
        stack = [e]
        while stack:
            cur = stack.pop()
            if cur.kind == "name":
                if cur.name in local_exp:
                    return True
            elif cur.kind == "op":
                stack.extend(cur.children)
            elif cur.kind == "call":
                if self._call(cur, module, mro, local_exp):
                    return True
                stack.extend(cur.children)
        return False

    def _call(
        self, call: Expr, module: Module, mro: tuple[str, ...], local_exp: frozenset[str]
    ) -> bool:
        name = call.name
        if self._matches(name, self.cheap_calls):
            return False
        if self._matches(name, self.expensive_calls):
            return True
        recv = call.receiver
        if recv is not None and recv.kind == "name" and recv.name == "self" and call.attr:
            fn = self.index.lookup_method(mro, call.attr)
            return fn is not None and self.function(fn, mro)
        if recv is not None and call.attr not in METADATA_METHODS:
            if recv.kind in ("call", "name", "op") and self.expr(recv, module, mro, local_exp):
                return True
        if name:
            # Built-in knowledge of torch stays the judge of torch's own classes and
            # functions where torch is installed (nn.ModuleList is cheap, nn.Linear is not);
            # other dependencies are judged from their source, like the project, once base
            # resolution has read the module (a call does not read new ones).
            public = self.index.public_name(module, name)
            if public is not None and (
                public.startswith("torch.") or self.index.reaches_unloaded_dependency(public)
            ):
                return self.external_expensive(public)
            target = self.index.resolve(module, name)
            if target is not None and target.name.startswith("torch."):
                if self.index.in_dependency(target):
                    return self.external_expensive(public or target.name)
            if target is None:
                return name in IO_CALLS or self._matches(name, self.expensive_calls)
            if target.kind == "external":
                return self.external_expensive(target.name)
            if target.kind == "class":
                info = self.index.class_info(target.name)
                return info is not None and self.class_expensive(info)
            if target.kind == "function":
                fn = self.index.function_info(target.name)
                return fn is not None and self.function(fn, ())
        return False

    def class_expensive(self, info: ClassInfo) -> bool:
        """Constructing an nn.Module subclass, or a class whose __init__ chain is expensive."""
        key = info.qualname
        if key in self._cls_memo:
            return self._cls_memo[key]
        self._cls_memo[key] = False  # recursion guard
        mro = self.index.mro(key).classes
        result = False
        for qual in mro:
            cinfo = self.index.class_info(qual)
            if cinfo is None or cinfo.module.is_dependency:
                if qual.startswith("torch.nn") and qual.rpartition(".")[2] == "Module":
                    result = True  # torch.nn.Module, or torch.nn.modules.module.Module
                    break
            if cinfo is None:
                continue
            init = cinfo.facts.method("__init__")
            if init is not None:
                fn = FunctionInfo(f"{qual}.__init__", cinfo.module, init, cinfo)
                if self.function(fn, mro):
                    result = True
                    break
        self._cls_memo[key] = result
        return result

    def function(self, fn: FunctionInfo, mro: tuple[str, ...]) -> bool:
        """A function is expensive if any of its effects computes real data."""
        key = (fn.qualname, mro[0] if mro else "")
        if key in self._fn_memo:
            return self._fn_memo[key]
        self._fn_memo[key] = False  # recursion guard: a cycle adds nothing
        local_exp: set[str] = set()
        result = False
        for eff in fn.facts.effects:
            frozen = frozenset(local_exp)
            if eff.kind == "local":
                if self.expr(eff.value, fn.module, mro, frozen):
                    local_exp.add(eff.name)
                else:
                    local_exp.discard(eff.name)
            elif eff.kind in ("assign", "return", "buffer"):
                if self.expr(eff.value, fn.module, mro, frozen):
                    result = True
            elif eff.kind == "call":
                callee = self.index.lookup_method(mro, eff.name) if mro else None
                if callee is not None and self.function(callee, mro):
                    result = True
            if result:
                break
        self._fn_memo[key] = result
        return result
