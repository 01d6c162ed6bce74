"""What the Python benchmark scripts share: the --vkattn/--device options, one verified
`vkattn bench` run read back from its JSON report, and PyTorch timed the same way everywhere."""
import argparse
import json
import os
import statistics
import subprocess
import time


def vkattn_parser(description):
    """An ArgumentParser with --vkattn (the binary, build/vkattn by default) and --device."""
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--vkattn", default=os.path.join(here, "..", "build", "vkattn"), help="the vkattn binary")
    p.add_argument("--device", help="vkattn device (index or name substring)")
    return p


def require_vkattn(parser, args):
    if not os.access(args.vkattn, os.X_OK):
        parser.error(f"--vkattn: {args.vkattn} is not an executable (build the project first)")


def vkattn_bench(args, workdir, kernel, *flags, env=None):
    """One verified `vkattn bench` run (args: vkattn, device, repeats, timeout; `env` added to the
    environment), the baseline left out: its JSON report with 'ok' and, on failure, 'error'."""
    path = os.path.join(workdir, "bench.json")
    if os.path.exists(path):
        os.remove(path)
    cmd = [args.vkattn, "bench", kernel, *map(str, flags), "--repeats", args.repeats, "--baseline-repeats", 0,
           "--json", path] + (["--device", args.device] if args.device else [])
    try:
        r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=args.timeout,
                           env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {args.timeout:g} s"}
    if not os.path.exists(path):
        lines = [line for line in r.stderr.strip().splitlines() if line.strip()]
        return {"ok": False, "error": lines[-1] if lines else f"exit {r.returncode}"}
    with open(path) as f:
        result = json.load(f)
    result["ok"] = r.returncode == 0 and result["passed"]
    if not result["ok"]:
        result["error"] = f"max |error| {result['max_abs_error']:.3g} over tolerance {result['tolerance']:.3g}"
    return result


def median_ms(torch, fn, repeats, cuda):
    """Milliseconds per call of fn (median of `repeats` after 3 warm-ups): CUDA events on a GPU, the
    host clock otherwise."""
    with torch.no_grad():
        for _ in range(3):
            fn()
        times = []
        for _ in range(repeats):
            if cuda:
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(end))
            else:
                t0 = time.perf_counter()
                fn()
                times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)
