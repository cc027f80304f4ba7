"""Construction cost of DeepSeek V4's rotary embedding: the buggy fixture against fixed_rope.

Both variants share the same (lean, chunked) cache build; the buggy one
(tests/fixtures/autofix/deepseek_v4_before) runs it twice and keeps a bf16 copy in between,
as vLLM did before the fix. For each device, config and variant this measures:

- init time: the median of ``--repeats`` constructions, each in a fresh subprocess after a
  small warm-up construction (CPU: ``time.perf_counter``; CUDA: CUDA events);
- peak memory above the level before construction: CPU, peak RSS (``VmHWM``, reset through
  ``/proc/self/clear_refs``) minus the RSS before; CUDA, ``torch.cuda.max_memory_allocated``
  minus the allocated bytes before;
- how many times ``_compute_cos_sin_cache`` ran and ``cos_sin_cache`` was registered.

Usage::

    python benchmarks/rope_init.py [--device auto|cpu|cuda] [--repeats 5]
        [--configs compressor,sliding] [--out FILE.json] [--md FILE.md] [--threads N]

Without ``--out`` the JSON goes to benchmarks/results/rope_init_<device>.json, one file per
device. The markdown table is printed, and written to ``--md`` when given.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
FIXTURES = REPO / "tests" / "fixtures" / "autofix"

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
VARIANTS = {"buggy": "deepseek_v4_before", "fixed": "fixed_rope"}
MIB = 2**20


# --- worker: one construction in this (fresh) process ----------------------------------------


def _proc_status(key: str) -> int:
    """A /proc/self/status memory field in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


def _reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def run_worker(variant: str, config: str, device: str, threads: int) -> dict[str, Any]:
    import importlib

    import torch

    if threads:
        torch.set_num_threads(threads)

    sys.path[:0] = [str(REPO), str(FIXTURES)]
    cls = importlib.import_module(VARIANTS[variant]).DeepseekV4ScalingRotaryEmbedding
    counts = {"computations": 0, "registrations": 0}
    compute, register = cls._compute_cos_sin_cache, cls.register_buffer

    def counting_compute(self: Any) -> Any:
        counts["computations"] += 1
        return compute(self)

    def counting_register(self: Any, name: str, *args: Any, **kwargs: Any) -> None:
        counts["registrations"] += name == "cos_sin_cache"
        register(self, name, *args, **kwargs)

    cls._compute_cos_sin_cache = counting_compute
    cls.register_buffer = counting_register
    kwargs = dict(CONFIGS[config], dtype=torch.bfloat16)
    cuda = device == "cuda"

    with torch.device(device):
        cls(**dict(kwargs, max_position_embeddings=64))  # warm-up: kernels, allocator, threads
    counts.update(computations=0, registrations=0)
    gc.collect()

    result: dict[str, Any] = {"variant": variant, "config": config, "device": device}
    result["torch_threads"] = torch.get_num_threads()
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
        end = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
        start.record()
        with torch.device(device):
            module = cls(**kwargs)
        end.record()
        torch.cuda.synchronize()
        result["init_s"] = start.elapsed_time(end) / 1000
        result["peak_bytes"] = torch.cuda.max_memory_allocated() - before
        result["peak_method"] = "torch.cuda.max_memory_allocated"
    else:
        reset = _reset_peak_rss()
        before = _proc_status("VmRSS")
        cpu0, t0 = time.process_time(), time.perf_counter()
        with torch.device(device):
            module = cls(**kwargs)
        result["init_s"] = time.perf_counter() - t0
        result["cpu_s"] = time.process_time() - cpu0
        result["peak_bytes"] = _proc_status("VmHWM") - before
        result["peak_method"] = "VmHWM - VmRSS" + ("" if reset else " (VmHWM not reset)")
    cache = module.cos_sin_cache
    result.update(
        cache_bytes=cache.nbytes,
        cache_shape=list(cache.shape),
        cache_dtype=str(cache.dtype).removeprefix("torch."),
        cache_device=cache.device.type,
        **counts,
    )
    return result


# --- driver ----------------------------------------------------------------------------------


def measure(variant: str, config: str, device: str, threads: int) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--worker", variant, config, device, f"--threads={threads}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode:
        raise RuntimeError(f"worker {variant}/{config}/{device} failed:\n{proc.stderr[-4000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    first = runs[0]
    times = [r["init_s"] for r in runs]
    peaks = [r["peak_bytes"] for r in runs]
    cpu_times = [r["cpu_s"] for r in runs if "cpu_s" in r]
    keys = ("variant", "config", "device", "cache_bytes", "cache_shape", "cache_dtype")
    row = {k: first[k] for k in keys}
    row.update(
        repeats=len(runs),
        init_s_median=statistics.median(times),
        init_s_min=min(times),
        init_s_max=max(times),
        init_s_all=times,
        cpu_s_median=statistics.median(cpu_times) if cpu_times else None,
        peak_bytes_median=statistics.median(peaks),
        peak_bytes_max=max(peaks),
        peak_over_cache=statistics.median(peaks) / first["cache_bytes"],
        peak_method=first["peak_method"],
        computations=sorted({r["computations"] for r in runs}),
        registrations=sorted({r["registrations"] for r in runs}),
    )
    return row


def compare(buggy: dict[str, Any], fixed: dict[str, Any]) -> dict[str, Any]:
    speedup = buggy["init_s_median"] / fixed["init_s_median"]
    return {
        "config": fixed["config"],
        "device": fixed["device"],
        "speedup": speedup,
        "peak_ratio_buggy_over_fixed": buggy["peak_bytes_median"] / fixed["peak_bytes_median"],
        "fixed_peak_over_cache": fixed["peak_over_cache"],
        "buggy_peak_over_cache": buggy["peak_over_cache"],
        "target_speedup_ge_2": speedup >= 2.0,
        "target_fixed_peak_le_1_15_cache": fixed["peak_over_cache"] <= 1.15,
    }


def markdown(
    rows: list[dict[str, Any]], comparisons: list[dict[str, Any]], meta: dict[str, Any]
) -> str:
    speedups = {(c["device"], c["config"]): c["speedup"] for c in comparisons}
    lines = [
        "| config | device | variant | init time (median) | speedup | process CPU time | "
        "peak memory | peak / cache | cache computations |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        speedup = speedups.get((r["device"], r["config"])) if r["variant"] == "fixed" else None
        cells = [
            r["config"],
            r["device"],
            r["variant"],
            f"{r['init_s_median']:.3f} s",
            f"{speedup:.2f}x" if speedup else "",
            "-" if r["cpu_s_median"] is None else f"{r['cpu_s_median']:.3f} s",
            f"{r['peak_bytes_median'] / MIB:.0f} MiB",
            f"{r['peak_over_cache']:.2f}x",
            "/".join(map(str, r["computations"])),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    hardware = f"{meta['cpu_count']} CPU cores ({meta['torch_threads']} torch threads)"
    if "cuda_device" in meta:
        hardware += f", {meta['cuda_device']}"
    lines += [
        "",
        f"dtype bfloat16; median of {meta['repeats']} constructions, each in a fresh process "
        f"after a warm-up; peak = CPU peak RSS (VmHWM) or CUDA max_memory_allocated, above "
        f"the level before construction; cache = [1048576, 64] fp32 = 256 MiB. "
        f"{hardware}, torch {meta['torch']}, Python {meta['python']}, {meta['date'][:10]}; "
        f"1-minute load average {meta['loadavg_1min_start']:.1f} at the start, "
        f"{meta['loadavg_1min_end']:.1f} at the end. "
        f"Produced by `python benchmarks/rope_init.py`.",
    ]
    return "\n".join(lines) + "\n"


def metadata(args: argparse.Namespace, devices: list[str]) -> dict[str, Any]:
    import torch

    meta: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "torch_threads": args.threads or torch.get_num_threads(),
        "devices": devices,
        "repeats": args.repeats,
        "dtype": "bfloat16",
        "configs": {name: CONFIGS[name] for name in args.configs},
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "loadavg_1min_start": args.loadavg_start,
        "loadavg_1min_end": os.getloadavg()[0],
    }
    if "cuda" in devices:
        meta["cuda_device"] = torch.cuda.get_device_name()
    return meta


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--device",
        choices=["auto", "cpu", "cuda"],
        default="auto",
        help="auto: CPU, plus CUDA when available (default)",
    )
    parser.add_argument("--repeats", type=int, default=5, help="constructions per variant")
    parser.add_argument(
        "--configs",
        type=lambda s: [c for c in s.split(",") if c],
        default=list(CONFIGS),
        help="comma-separated subset of: " + ",".join(CONFIGS),
    )
    parser.add_argument("--out", type=Path, help="JSON output (default: one file per device)")
    parser.add_argument("--md", type=Path, help="also write the markdown table here")
    parser.add_argument(
        "--threads", type=int, default=0, help="torch CPU threads (default: torch's choice)"
    )
    parser.add_argument(
        "--worker", nargs=3, metavar=("VARIANT", "CONFIG", "DEVICE"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.configs) - set(CONFIGS))
    if unknown or not args.configs:
        parser.error(f"unknown configs {unknown}; choose from {sorted(CONFIGS)}")
    if args.repeats < 1 or args.threads < 0:
        parser.error("--repeats must be >= 1 and --threads >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        variant, config, device = args.worker
        print(json.dumps(run_worker(variant, config, device, args.threads)))
        return 0
    args.loadavg_start = os.getloadavg()[0]

    import torch

    has_cuda = torch.cuda.is_available()
    if args.device == "cuda" and not has_cuda:
        print("rope_init.py: --device cuda requested but CUDA is not available", file=sys.stderr)
        return 2
    devices = {"auto": ["cpu"] + (["cuda"] if has_cuda else []), "cpu": ["cpu"]}.get(
        args.device, ["cuda"]
    )

    rows: list[dict[str, Any]] = []
    comparisons: list[dict[str, Any]] = []
    for device in devices:
        for config in args.configs:
            runs: dict[str, list[dict[str, Any]]] = {v: [] for v in VARIANTS}
            for i in range(args.repeats):
                for variant in VARIANTS:  # interleaved, so drift hits both alike
                    run = measure(variant, config, device, args.threads)
                    runs[variant].append(run)
                    print(
                        f"[{device} {config} {variant} {i + 1}/{args.repeats}] "
                        f"{run['init_s']:.3f} s, peak {run['peak_bytes'] / MIB:.0f} MiB",
                        file=sys.stderr,
                    )
            summary = {v: summarize(r) for v, r in runs.items()}
            rows += [summary["buggy"], summary["fixed"]]
            comparisons.append(compare(summary["buggy"], summary["fixed"]))

    meta = metadata(args, devices)
    table = markdown(rows, comparisons, meta)
    print(table)
    for c in comparisons:
        print(
            f"{c['device']}/{c['config']}: speedup {c['speedup']:.2f}x (target >= 2), "
            f"fixed peak {c['fixed_peak_over_cache']:.3f}x cache (target <= 1.15)"
        )

    outputs = (
        {args.out: devices} if args.out else {RESULTS / f"rope_init_{d}.json": [d] for d in devices}
    )
    for path, devs in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        doc = {
            "meta": dict(meta, devices=devs),
            "results": [r for r in rows if r["device"] in devs],
            "comparisons": [c for c in comparisons if c["device"] in devs],
        }
        path.write_text(json.dumps(doc, indent=2) + "\n")
        print(f"wrote {path}")
    if args.md:
        args.md.parent.mkdir(parents=True, exist_ok=True)
        args.md.write_text(table)
        print(f"wrote {args.md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
