"""Verify fixed_rope's DeepSeek V4 rotary embedding on one CUDA GPU (a few minutes at most).

Checks, each recorded in the JSON even when it fails:

1. ``cache_on_device``: constructed under ``with torch.device("cuda")``, the fp32 cache is
   built on the GPU: the buffer lives there, no CPU tensor of cache size is allocated
   (profiler CPU-memory events and peak host RSS) and GPU peak memory stays <= 1.15x cache.
2. ``peak_memory``: GPU peak memory and cache computations, buggy fixture vs fixed.
3. ``init_time``: construction time with CUDA events, median of ``--repeats``, buggy vs fixed,
   for the compressor and sliding configs.
4. ``accuracy``: every row of the CUDA cache against the float64 reference on the CPU
   (tolerance c * eps32 * (1 + |p w|)); the chunked CUDA build is bitwise the full-tensor
   formula on CUDA; and how the CUDA cache compares with the CPU one.
5. ``forward``: bf16 forward throughput, query [T, 64, 512], key [T, 1, 512], T in
   ``--tokens``; and the CUDA output against the CPU output (within one bf16 ulp).

Usage: ``python benchmarks/gpu_verify.py [--out FILE] [--repeats 5] [--tokens 1024,8192,32768]``.
Exits 0 when every check passes, 1 when one fails, 2 without CUDA. ``--smoke`` runs the same
code on the CPU at small sizes, to test this script on a machine without a GPU (its numbers
mean nothing).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import platform
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for _path in (REPO, REPO / "tests" / "fixtures" / "autofix", REPO / "tests" / "rope"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

MIB = 2**20
CONFIGS: dict[str, dict[str, Any]] = {
    "compressor": dict(
        head_size=512,
        rotary_dim=64,
        max_position_embeddings=65536,
        base=160000,
        is_neox_style=False,
        scaling_factor=16,
        beta_fast=32,
        beta_slow=1,
        mscale=0,
        mscale_all_dim=0,
    ),
    "sliding": dict(
        head_size=512,
        rotary_dim=64,
        max_position_embeddings=1048576,
        base=10000,
        is_neox_style=False,
        scaling_factor=1,
    ),
}


class Env:
    """Device-dependent timing and memory measurement."""

    def __init__(self, smoke: bool) -> None:
        import torch

        self.torch = torch
        self.device = "cpu" if smoke else "cuda"
        self.cuda = not smoke
        self.smoke = smoke
        # --smoke shrinks the contexts 256x so the CPU run takes seconds.
        self.shrink = 256 if smoke else 1

    def config(self, name: str) -> dict[str, Any]:
        kw = dict(CONFIGS[name])
        kw["max_position_embeddings"] //= self.shrink
        return kw

    def sync(self) -> None:
        if self.cuda:
            self.torch.cuda.synchronize()

    @contextmanager
    def timer(self) -> Iterator[list[float]]:
        """Yields a list that receives the elapsed milliseconds."""
        out: list[float] = []
        if self.cuda:
            start = self.torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            end = self.torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            start.record()
            yield out
            end.record()
            end.synchronize()
            out.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            yield out
            out.append((time.perf_counter() - t0) * 1000)

    @contextmanager
    def peak_memory(self) -> Iterator[dict[str, int]]:
        """Yields a dict that receives the device peak bytes above the starting level."""
        out: dict[str, int] = {}
        gc.collect()
        if self.cuda:
            self.torch.cuda.synchronize()
            self.torch.cuda.empty_cache()
            self.torch.cuda.reset_peak_memory_stats()
            before = self.torch.cuda.memory_allocated()
            yield out
            self.torch.cuda.synchronize()
            out["peak_bytes"] = self.torch.cuda.max_memory_allocated() - before
        else:
            with host_peak() as host:
                yield out
            out["peak_bytes"] = host["peak_bytes"]


def _proc_status(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


@contextmanager
def host_peak() -> Iterator[dict[str, int]]:
    """Peak host RSS above the starting RSS (Linux; -1 when /proc is unavailable)."""
    out: dict[str, int] = {}
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = _proc_status("VmRSS")
    except OSError:
        before = -1
    yield out
    out["peak_bytes"] = _proc_status("VmHWM") - before if before >= 0 else -1


def v4_class(variant: str) -> Any:
    package = {"fixed": "fixed_rope", "buggy": "deepseek_v4_before"}[variant]
    return importlib.import_module(package).DeepseekV4ScalingRotaryEmbedding


@contextmanager
def counting_computations(cls: Any) -> Iterator[list[int]]:
    calls = [0]
    original = cls._compute_cos_sin_cache

    def counting(self: Any) -> Any:
        calls[0] += 1
        return original(self)

    cls._compute_cos_sin_cache = counting
    try:
        yield calls
    finally:
        cls._compute_cos_sin_cache = original


def build(env: Env, variant: str, config: str, **overrides: Any) -> Any:
    torch = env.torch
    with torch.device(env.device):
        return v4_class(variant)(**dict(env.config(config), **overrides), dtype=torch.bfloat16)


def warm_up(env: Env) -> None:
    for variant in ("fixed", "buggy"):
        build(env, variant, "compressor", max_position_embeddings=64)
    env.sync()


# --- checks ------------------------------------------------------------------------------------


def check_cache_on_device(env: Env, args: argparse.Namespace) -> dict[str, Any]:
    torch = env.torch
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if env.cuda else [])
    # Host RSS and device peak without the profiler (whose buffers would count as host memory).
    with host_peak() as host, env.peak_memory() as device_peak:
        module = build(env, "fixed", "compressor")
        env.sync()
    cache = module.cos_sin_cache
    del module
    with profile(activities=activities, profile_memory=True) as prof:
        build(env, "fixed", "compressor")
        env.sync()
    events = list(prof.events())
    cpu_alloc = max([e.cpu_memory_usage for e in events] + [0])
    htod = [e.name for e in events if "HtoD" in e.name]
    result = {
        "buffer_device": str(cache.device),
        "buffer_dtype": str(cache.dtype),
        "cache_shape": list(cache.shape),
        "cache_bytes": cache.nbytes,
        "largest_cpu_allocation_bytes_in_profiler": cpu_alloc,
        "host_rss_peak_delta_bytes": host["peak_bytes"],
        "htod_memcpy_events": len(htod),
        "device_peak_bytes": device_peak["peak_bytes"],
        "device_peak_over_cache": device_peak["peak_bytes"] / cache.nbytes,
    }
    # Under --smoke the "device" is the CPU itself, so only the placement is checked.
    result["ok"] = (
        cache.device.type == env.device
        and cache.dtype == torch.float32
        and result["device_peak_over_cache"] <= 1.15
        and (not env.cuda or cpu_alloc < cache.nbytes // 64)
        and (not env.cuda or host["peak_bytes"] < cache.nbytes // 4)
    )
    return result


def check_peak_memory(env: Env, args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for variant in ("buggy", "fixed"):
        with counting_computations(v4_class(variant)) as calls, env.peak_memory() as peak:
            module = build(env, variant, "compressor")
        nbytes = module.cos_sin_cache.nbytes
        del module
        result[variant] = {
            "peak_bytes": peak["peak_bytes"],
            "peak_mib": peak["peak_bytes"] / MIB,
            "peak_over_cache": peak["peak_bytes"] / nbytes,
            "computations": calls[0],
        }
    result["buggy_over_fixed"] = result["buggy"]["peak_bytes"] / result["fixed"]["peak_bytes"]
    result["ok"] = (
        result["fixed"]["peak_over_cache"] <= 1.15
        and result["fixed"]["computations"] == 1
        and result["buggy"]["computations"] == 2
    )
    return result


def check_init_time(env: Env, args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for config in CONFIGS:
        row: dict[str, Any] = {}
        for variant in ("buggy", "fixed"):
            times = []
            for _ in range(args.repeats):
                gc.collect()
                with env.timer() as elapsed:
                    module = build(env, variant, config)
                del module
                times.append(elapsed[0])
            row[variant] = {"median_ms": statistics.median(times), "all_ms": times}
        row["speedup"] = row["buggy"]["median_ms"] / row["fixed"]["median_ms"]
        result[config] = row
    # CPU timings of the shrunken --smoke sizes are noise, so only a GPU run is judged.
    result["ok"] = env.smoke or all(result[c]["speedup"] > 1.0 for c in CONFIGS)
    return result


def check_accuracy(env: Env, args: argparse.Namespace) -> dict[str, Any]:
    import rope_reference as ref

    torch = env.torch
    from fixed_rope import DeepseekScalingRotaryEmbedding

    result: dict[str, Any] = {}
    for config in CONFIGS:
        kw = env.config(config)
        module = build(env, "fixed", config)
        cache = module.cos_sin_cache
        with torch.device(env.device):
            plain = DeepseekScalingRotaryEmbedding._compute_cos_sin_cache(module)
        bitwise_plain = bool(torch.equal(cache, plain))
        del plain
        with torch.device("cpu"):
            cpu_cache = v4_class("fixed")(**kw, dtype=torch.bfloat16).cos_sin_cache
        dev_cpu = cache.cpu()
        differ = dev_cpu != cpu_cache
        freqs = ref.omega(
            kw["rotary_dim"],
            kw["base"],
            kw["max_position_embeddings"],
            kw["scaling_factor"],
            kw.get("beta_fast", 32),
            kw.get("beta_slow", 1),
        )
        magnitude = ref.mscale(
            kw["scaling_factor"], kw.get("mscale", 1), kw.get("mscale_all_dim", 0)
        )
        worst = 0.0
        for start in range(0, dev_cpu.size(0), 1 << 17):
            positions = torch.arange(start, min(start + (1 << 17), dev_cpu.size(0)))
            rows, angles = ref.cache_rows(positions, freqs, magnitude)
            err = (dev_cpu[positions].double() - rows).abs()
            worst = max(worst, (err / ref.cache_atol(angles, magnitude)).max().item())
        result[config] = {
            "rows": dev_cpu.size(0),
            "bitwise_equal_to_full_tensor_formula_on_device": bitwise_plain,
            "worst_error_over_tolerance": worst,
            "elements_differing_from_cpu_cache": int(differ.sum()),
            "max_abs_difference_from_cpu_cache": (dev_cpu - cpu_cache).abs().max().item(),
        }
        del module, cache, dev_cpu, cpu_cache
    result["ok"] = all(
        result[c]["worst_error_over_tolerance"] <= 1.0
        and result[c]["bitwise_equal_to_full_tensor_formula_on_device"]
        for c in CONFIGS
    )
    return result


def check_forward(env: Env, args: argparse.Namespace) -> dict[str, Any]:
    torch = env.torch
    module = build(env, "fixed", "compressor")
    rows = module.cos_sin_cache.size(0)
    gen = torch.Generator(device=env.device).manual_seed(0)
    result: dict[str, Any] = {}
    for tokens in args.tokens:
        with torch.device(env.device):
            positions = torch.randint(0, rows, (tokens,), generator=gen)
            query = torch.randn(tokens, 64, 512, generator=gen, dtype=torch.bfloat16)
            key = torch.randn(tokens, 1, 512, generator=gen, dtype=torch.bfloat16)
        for _ in range(3):
            module(positions, query, key)
        env.sync()
        times = []
        for _ in range(args.iters):
            with env.timer() as elapsed:
                module(positions, query, key)
            times.append(elapsed[0])
        ms = statistics.median(times)
        moved = 2 * (query.nbytes + key.nbytes)  # read and write q and k
        result[f"T={tokens}"] = {
            "median_ms": ms,
            "tokens_per_s": tokens / (ms / 1000),
            "effective_gb_per_s": moved / (ms / 1000) / 1e9,
        }
        del query, key, positions
    # The device output against the CPU module's output on a slice.
    with torch.device("cpu"):
        cpu_module = v4_class("fixed")(**env.config("compressor"), dtype=torch.bfloat16)
        positions = torch.randint(0, rows, (256,))
        query = torch.randn(256, 64, 512, dtype=torch.bfloat16)
        key = torch.randn(256, 1, 512, dtype=torch.bfloat16)
    q_dev, k_dev = module(positions.to(env.device), query.to(env.device), key.to(env.device))
    q_cpu, k_cpu = cpu_module(positions, query, key)
    assert k_dev is not None and k_cpu is not None
    worst_ulps = 0.0
    for dev_out, cpu_out in ((q_dev.cpu(), q_cpu), (k_dev.cpu(), k_cpu)):
        exact = cpu_out.float()
        exponent = torch.frexp(exact.abs().clamp_min(torch.finfo(torch.bfloat16).tiny)).exponent
        ulp = torch.ldexp(torch.full_like(exact, torch.finfo(torch.bfloat16).eps), exponent - 1)
        worst_ulps = max(worst_ulps, ((dev_out.float() - exact).abs() / ulp).max().item())
    result["device_vs_cpu_worst_bf16_ulps"] = worst_ulps
    result["ok"] = worst_ulps <= 1.0
    return result


CHECKS: dict[str, Callable[[Env, argparse.Namespace], dict[str, Any]]] = {
    "cache_on_device": check_cache_on_device,
    "peak_memory": check_peak_memory,
    "init_time": check_init_time,
    "accuracy": check_accuracy,
    "forward": check_forward,
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=REPO / "benchmarks" / "results" / "gpu_verify.json",
        help="JSON output (default: benchmarks/results/gpu_verify.json)",
    )
    parser.add_argument("--repeats", type=int, default=5, help="constructions per timing")
    parser.add_argument("--iters", type=int, default=20, help="forward calls per timing")
    parser.add_argument(
        "--tokens",
        type=lambda s: [int(t) for t in s.split(",") if t],
        default=[1024, 8192, 32768],
        help="comma-separated token counts for the forward benchmark",
    )
    parser.add_argument(
        "--checks",
        type=lambda s: [c for c in s.split(",") if c],
        default=list(CHECKS),
        help="comma-separated subset of: " + ",".join(CHECKS),
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="run on the CPU at small sizes to test this script (numbers are meaningless)",
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.checks) - set(CHECKS))
    if unknown:
        parser.error(f"unknown checks {unknown}; choose from {list(CHECKS)}")
    if args.repeats < 1 or args.iters < 1 or not args.tokens:
        parser.error("--repeats, --iters and --tokens must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import torch

    if not args.smoke and not torch.cuda.is_available():
        print(
            "gpu_verify.py: CUDA is not available, so nothing was verified. Run it on a "
            "machine with a CUDA GPU (or pass --smoke to test the script on the CPU).",
            file=sys.stderr,
        )
        return 2
    env = Env(args.smoke)
    report: dict[str, Any] = {
        "meta": {
            "device": torch.cuda.get_device_name() if env.cuda else "cpu (--smoke)",
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "python": platform.python_version(),
            "smoke": args.smoke,
            "repeats": args.repeats,
            "iters": args.iters,
            "tokens": args.tokens,
        },
        "checks": {},
    }
    t_start = time.perf_counter()
    warm_up(env)
    for name in args.checks:
        t0 = time.perf_counter()
        try:
            outcome = CHECKS[name](env, args)
        except Exception as exc:  # keep going: one failed check must not hide the others
            outcome = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            traceback.print_exc()
        outcome["seconds"] = time.perf_counter() - t0
        report["checks"][name] = outcome
        gc.collect()
        if env.cuda:
            torch.cuda.empty_cache()
        status = "PASS" if outcome["ok"] else "FAIL"
        print(f"[{status}] {name} ({outcome['seconds']:.1f} s)")
        print(textwrap_json(outcome))
    report["seconds"] = time.perf_counter() - t_start
    report["ok"] = all(c["ok"] for c in report["checks"].values())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"{'all checks passed' if report['ok'] else 'SOME CHECKS FAILED'}; wrote {args.out}")
    return 0 if report["ok"] else 1


def textwrap_json(outcome: dict[str, Any]) -> str:
    return "\n".join("    " + line for line in json.dumps(outcome, indent=2).splitlines()[1:-1])


if __name__ == "__main__":
    sys.exit(main())
