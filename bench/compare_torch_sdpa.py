#!/usr/bin/env python3
"""vkattn's fused attention beside PyTorch's scaled_dot_product_attention, one command.

For each head dim D, sequence length L and causal flag, with B = tokens // L sequences and
H = hidden // D heads (FlashAttention's convention: 16k tokens, hidden size 2048):

* every requested vkattn kernel variant runs through `vkattn bench attention`, which checks
  its output against a double-precision CPU reference (all rows, or 64 rows per head at long L)
  and times it with GPU timestamps;
* PyTorch runs F.scaled_dot_product_attention on the same shape and dtype (CUDA when PyTorch
  sees a GPU, timed with CUDA events; else on the CPU, float32 only, and without SDPA in older
  PyTorch, softmax(QKᵀ·scale)V written out);
* once per variant and causal flag, both libraries run on identical inputs (`vkattn run
  attention`) and their outputs are compared, so the two columns are known to compute the same.

FLOPs are 4·D per visible query/key pair (L² pairs; L(L+1)/2 causal), the count behind vkattn's
own rates (reference/work_counts.cpp). The table goes to stdout and
to --out as Markdown; --json keeps every number. Exit status 1 when any check fails; a variant
the device cannot run (coopmat without the extension) is reported, not failed.

    /usr/bin/python3 bench/compare_torch_sdpa.py --vkattn build/vkattn --variants tiled,coopmat --out sdpa.md
"""
import json
import os
import platform
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import median_ms, require_vkattn, vkattn_parser  # noqa: E402

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - reported to the user
    sys.exit("compare_torch_sdpa: PyTorch is not installed for " + sys.executable)

# |vkattn - PyTorch| bounds on identical inputs (tests/test_attention.cpp's, fp32 accumulation).
TOLERANCE = {"f16": (2e-3, 5e-3), "f32": (2e-5, 1e-4)}


def parse_args():
    p = vkattn_parser(__doc__.split("\n")[0])
    p.add_argument("--variants", default="auto,coopmat",
                   help="comma-separated: auto, rows, tiled, coopmat, coopmat2, coopmat2-wg")
    p.add_argument("--dims", default="64,128")
    p.add_argument("--lengths", default="512,1024,2048,4096,8192,16384")
    p.add_argument("--causal", choices=["both", "yes", "no"], default="both")
    p.add_argument("--dtype", choices=["f16", "f32"], default="f16", help="storage type of Q, K, V and O")
    p.add_argument("--tokens", type=int, default=16384, help="B = tokens // L")
    p.add_argument("--hidden", type=int, default=2048, help="H = hidden // D")
    p.add_argument("--check-len", type=int, default=256, help="sequence length of the identical-input check")
    p.add_argument("--repeats", type=int, default=10, help="timed calls of each library (median reported)")
    p.add_argument("--out", help="write the Markdown table here")
    p.add_argument("--json", help="write every measurement here")
    p.add_argument("--quick", action="store_true", help="small shapes (a smoke test on a CPU driver)")
    a = p.parse_args()
    if a.quick:
        a.dims, a.lengths, a.tokens, a.hidden, a.check_len, a.repeats = "64", "64,128", 256, 128, 64, 3
    a.variants = [v for v in a.variants.split(",") if v]
    for v in a.variants:
        if v not in ("auto", "rows", "tiled", "coopmat", "coopmat2", "coopmat2-wg"):
            p.error(f"--variants: '{v}' is not auto, rows, tiled, coopmat, coopmat2 or coopmat2-wg")
    a.dims = [int(x) for x in a.dims.split(",")]
    a.lengths = [int(x) for x in a.lengths.split(",")]
    a.causal_flags = {"both": [False, True], "yes": [True], "no": [False]}[a.causal]
    require_vkattn(p, a)
    return a


def flops(b, h, lq, lk, d, causal):
    """4·D FLOPs (Q·K and P·V) per visible pair; causal aligned to the bottom-right corner."""
    if causal:
        shift = lk - lq  # query i sees keys j <= i + shift
        pairs = sum(min(lk, max(0, i + shift + 1)) for i in range(lq))
    else:
        pairs = lq * lk
    return 4.0 * b * h * d * pairs


def dtype_flag(args):
    return ["--f16"] if args.dtype == "f16" else []


def vkattn_env(variant):
    env = dict(os.environ)
    env.pop("VKATTN_ATTENTION_VARIANT", None)
    if variant != "auto":
        env["VKATTN_ATTENTION_VARIANT"] = variant
    return env


def vkattn_cmd(args, *rest):
    cmd = [args.vkattn, *rest]
    if args.device:
        cmd += ["--device", args.device]
    return cmd


def last_error_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else "no output"


def run_vkattn_bench(args, variant, b, h, length, d, causal, workdir):
    path = os.path.join(workdir, "bench.json")
    if os.path.exists(path):
        os.remove(path)
    cmd = vkattn_cmd(args, "bench", "attention", *dtype_flag(args), "--batch", b, "--heads", h, "--len", length,
                     "--dim", d, "--repeats", args.repeats, "--baseline-repeats", 0, "--json", path,
                     *(["--causal"] if causal else []))
    r = subprocess.run([str(c) for c in cmd], env=vkattn_env(variant), capture_output=True, text=True)
    if os.path.exists(path):
        with open(path) as f:
            result = json.load(f)
        result["ok"] = r.returncode == 0 and result["passed"]
        if r.returncode != 0 and result["passed"]:
            result["error"] = last_error_line(r.stderr)
        return result
    message = last_error_line(r.stderr)
    unsupported = "cooperative-matrix" in message or "not supported" in message.lower()
    return {"ok": unsupported, "unsupported": unsupported, "error": message}


class Torch:
    def __init__(self, dtype):
        self.cuda = torch.cuda.is_available()
        self.device = torch.device("cuda" if self.cuda else "cpu")
        self.has_sdpa = hasattr(F, "scaled_dot_product_attention")
        # PyTorch's CPU attention is float32 (1.13 has no fp16 CPU matmul); the label says which ran.
        self.dtype = torch.float16 if dtype == "f16" and self.cuda else torch.float32
        name = torch.cuda.get_device_name(0) if self.cuda else platform.processor() or "CPU"
        path = "SDPA" if self.has_sdpa else "math"
        self.label = f"torch {torch.__version__.split('+')[0]} {path} ({name}, {str(self.dtype).split('.')[-1]})"

    def attention(self, q, k, v, causal):
        if self.has_sdpa:
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        s = (q @ k.transpose(-2, -1)) * (q.shape[-1] ** -0.5)
        if causal:
            n = s.shape[-1]
            s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=s.device).triu(1), float("-inf"))
        return torch.softmax(s, dim=-1) @ v

    def inputs(self, b, h, length, d, seed):
        g = torch.Generator(device="cpu").manual_seed(seed)
        make = lambda: (torch.rand(b, h, length, d, generator=g) * 2 - 1).to(self.device, self.dtype)
        return make(), make(), make()

    def time_ms(self, fn, repeats):
        return median_ms(torch, fn, repeats, self.cuda)

    def measure(self, b, h, length, d, causal, repeats):
        q, k, v = self.inputs(b, h, length, d, seed=length + d)
        try:
            ms = self.time_ms(lambda: self.attention(q, k, v, causal), repeats)
        except RuntimeError as e:  # out of memory on the math path, say
            return {"ok": False, "error": str(e).splitlines()[0]}
        finally:
            del q, k, v
            if self.cuda:
                torch.cuda.empty_cache()
        return {"ok": True, "median_ms": ms, "rate": flops(b, h, length, length, d, causal) / (ms * 1e6)}


def identical_input_check(args, tch, variant, d, causal, workdir):
    """vkattn and PyTorch on the same fp16 inputs; returns (ok, max |difference|, note)."""
    rng = np.random.default_rng(d + 2 * causal)
    shape = (1, 2, args.check_len, d)
    q, k, v = (rng.uniform(-1, 1, shape).astype(np.float16).astype(np.float32) for _ in range(3))
    for name, x in (("q", q), ("k", k), ("v", v)):
        np.save(os.path.join(workdir, name + ".npy"), x)
    out = os.path.join(workdir, "out.npy")
    cmd = vkattn_cmd(args, "run", "attention", *dtype_flag(args), "--out", out,
                     *[f for n in "qkv" for f in ("--" + n, os.path.join(workdir, n + ".npy"))],
                     *(["--causal"] if causal else []))
    r = subprocess.run([str(c) for c in cmd], env=vkattn_env(variant), capture_output=True, text=True)
    if r.returncode != 0:
        message = last_error_line(r.stderr)
        return "cooperative-matrix" in message, None, message
    got = np.load(out)
    with torch.no_grad():
        t = [torch.from_numpy(x).to(tch.device) for x in (q, k, v)]  # float32 math on fp16 values
        ref = tch.attention(*t, causal).float().cpu().numpy()
    atol, rtol = TOLERANCE[args.dtype]
    diff = np.abs(got - ref)
    ok = bool(np.all(diff <= atol + rtol * np.abs(ref)))
    return ok, float(diff.max()), ""


def fmt_rate(r, shown_variant):
    if r.get("unsupported"):
        return "unsupported"
    if "rate" not in r:
        return "error"
    text = f"{r['rate'] / 1e3:.3g}"
    if shown_variant:  # what auto resolved to
        text += f" ({r.get('variant', '?')})"
    return text if r["ok"] else text + " FAIL"


def main():
    args = parse_args()
    tch = Torch(args.dtype)
    failures = []
    rows = []
    checks = []
    device_name = None
    with tempfile.TemporaryDirectory(prefix="vkattn-sdpa-") as workdir:
        for variant in args.variants:
            for d in args.dims:
                for causal in args.causal_flags:
                    ok, err, note = identical_input_check(args, tch, variant, d, causal, workdir)
                    checks.append({"variant": variant, "dim": d, "causal": causal, "ok": ok, "max_abs_diff": err,
                                   "note": note})
                    if not ok:
                        failures.append(f"identical-input check {variant} D={d} causal={causal}: {note or err}")
        for d in args.dims:
            for length in args.lengths:
                b, h = max(1, args.tokens // length), max(1, args.hidden // d)
                for causal in args.causal_flags:
                    row = {"dim": d, "len": length, "batch": b, "heads": h, "causal": causal, "vkattn": {}}
                    for variant in args.variants:
                        r = run_vkattn_bench(args, variant, b, h, length, d, causal, workdir)
                        device_name = r.get("device", device_name)
                        row["vkattn"][variant] = r
                        if not r["ok"]:
                            failures.append(f"vkattn {variant} D={d} L={length} causal={causal}: "
                                            f"{r.get('error', 'output outside tolerance')}")
                    row["torch"] = tch.measure(b, h, length, d, causal, args.repeats)
                    if not row["torch"]["ok"]:
                        failures.append(f"torch D={d} L={length} causal={causal}: {row['torch']['error']}")
                    rows.append(row)
                    done = ", ".join(f"{v} {r['rate'] / 1e3:.3g}" for v, r in row["vkattn"].items() if "rate" in r)
                    print(f"D={d} L={length} B×H={b}×{h} causal={'yes' if causal else 'no'}: vkattn {done or '-'}; "
                          f"PyTorch {row['torch'].get('rate', float('nan')) / 1e3:.3g} TFLOP/s", file=sys.stderr, flush=True)

    lines = [f"vkattn on {device_name or 'an unknown device'}, beside {tch.label}; TFLOP/s "
             f"(4·D per visible query/key pair); vkattn stores {args.dtype}.", ""]
    header = ["D", "L", "B×H", "causal"] + [f"vkattn {v}" for v in args.variants] + ["PyTorch", "best vkattn / PyTorch"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for row in rows:
        rates = [r["rate"] for r in row["vkattn"].values() if r.get("ok") and "rate" in r]
        t = row["torch"]
        ratio = f"{max(rates) / t['rate']:.2f}×" if rates and t.get("ok") else "n/a"
        cells = [row["dim"], row["len"], f"{row['batch']}×{row['heads']}", "yes" if row["causal"] else "no"]
        cells += [fmt_rate(row["vkattn"][v], v == "auto") for v in args.variants]
        cells += [f"{t['rate'] / 1e3:.3g}" if t.get("ok") else "error", ratio]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    lines.append("")
    atol, rtol = TOLERANCE[args.dtype]
    lines.append(f"Identical inputs (1×2×{args.check_len}×D) through both libraries, |vkattn − PyTorch| "
                 f"within {atol:g} + {rtol:g}·|PyTorch|:")
    for c in checks:
        state = "ok" if c["ok"] and c["max_abs_diff"] is not None else ("unsupported" if c["ok"] else "FAIL")
        diff = f"{c['max_abs_diff']:.2e}" if c["max_abs_diff"] is not None else c["note"]
        lines.append(f"- {c['variant']}, D={c['dim']}, causal={'yes' if c['causal'] else 'no'}: {state} ({diff})")
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"vkattn_device": device_name, "torch": tch.label, "rows": rows, "checks": checks}, f, indent=1)
    for f in failures:
        print("FAILED " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
