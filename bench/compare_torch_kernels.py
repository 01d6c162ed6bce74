#!/usr/bin/env python3
"""vkattn's decode attention, linear layer and row kernels beside PyTorch, one command.

Each vkattn figure comes from `vkattn bench KERNEL --json`, which first checks the output against
a double-precision CPU reference (sampled rows at large shapes) and then times the kernel with GPU
timestamps (median of --repeats). PyTorch runs the same shape and dtype in this process, timed
with CUDA events (median). Three tables, each with the device copy bandwidth as the memory ceiling:

* decode: one query row per head against a K/V cache of Lk keys (GQA), in GB/s of K and V read
  (2·B·Hkv·Lk·D·bytes per call), beside F.scaled_dot_product_attention on the same shape;
* linear: y = x Wᵀ (vkattn adds bias and GELU in the same kernel) in TFLOP/s (2·M·N·K), beside
  torch.matmul;
* row kernels: softmax, LayerNorm, RMSNorm and RoPE in GB/s (each element read once and written
  once), beside torch.softmax, F.layer_norm, F.rms_norm and a rotate-half RoPE in PyTorch ops.

    python3 bench/compare_torch_kernels.py --vkattn build/vkattn --out kernels.md

Exit status 1 when a vkattn check fails or a vkattn run errs. On a machine without a CUDA PyTorch
the PyTorch columns are left out (the vkattn figures still run and are checked).
"""
import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import median_ms, require_vkattn, vkattn_bench, vkattn_parser  # noqa: E402

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - reported to the user
    torch = None


def parse_args():
    p = vkattn_parser(__doc__.split("\n")[0])
    p.add_argument("--tables", default="decode,linear,rows", help="comma-separated: decode, linear, rows")
    p.add_argument("--decode-lengths", default="4096,16384,65536,131072", help="Lk of the decode table")
    p.add_argument("--decode-heads", default="32,8", help="query heads, K/V heads")
    p.add_argument("--dim", type=int, default=128, help="head dim of the decode and RoPE shapes")
    p.add_argument("--linear-shapes", default="4096x4096x4096,8192x8192x8192,1x4096x4096",
                   help="MxNxK, comma-separated")
    p.add_argument("--rows-shape", default="16384x4096", help="ROWSxCOLS of softmax, LayerNorm and RMSNorm")
    p.add_argument("--rope-shape", default="1x32x8192", help="BxHxL of RoPE (head dim --dim)")
    p.add_argument("--repeats", type=int, default=50, help="timed runs of each kernel (median reported)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds allowed to each vkattn run")
    p.add_argument("--out", help="write the Markdown tables here")
    p.add_argument("--json", help="write every measurement here")
    p.add_argument("--quick", action="store_true", help="small shapes (a smoke test on a CPU driver)")
    a = p.parse_args()
    if a.quick:
        a.decode_lengths, a.linear_shapes, a.rows_shape, a.rope_shape, a.repeats = "256,1024", "64x64x64,1x128x128", \
            "64x256", "1x4x64", 3
    a.tables = [t for t in a.tables.split(",") if t]
    for t in a.tables:
        if t not in ("decode", "linear", "rows"):
            p.error(f"--tables: '{t}' is not decode, linear or rows")
    a.decode_lengths = [int(x) for x in a.decode_lengths.split(",")]
    a.heads, a.kv_heads = (int(x) for x in a.decode_heads.split(","))
    a.linear_shapes = [tuple(int(v) for v in s.split("x")) for s in a.linear_shapes.split(",")]
    a.rows_shape = tuple(int(v) for v in a.rows_shape.split("x"))
    a.rope_shape = tuple(int(v) for v in a.rope_shape.split("x"))
    require_vkattn(p, a)
    return a


class Peer:
    """PyTorch on the GPU, timed with CUDA events; absent without a CUDA PyTorch."""

    def __init__(self, repeats):
        self.on = torch is not None and torch.cuda.is_available()
        self.repeats = repeats
        self.label = (f"torch {torch.__version__.split('+')[0]} on {torch.cuda.get_device_name(0)}" if self.on
                      else "no CUDA PyTorch")

    def ms(self, fn):
        return median_ms(torch, fn, self.repeats, cuda=True)

    def rand(self, *shape, dtype=None):
        return torch.rand(*shape, device="cuda", dtype=dtype or torch.float16) * 2 - 1

    def copy_gbs(self, nbytes=1 << 30):
        a = torch.empty(nbytes // 2, device="cuda", dtype=torch.float16).uniform_()
        b = torch.empty_like(a)
        return 2 * nbytes / (self.ms(lambda: b.copy_(a)) * 1e6)


def progress(lines):
    print(lines[-1], file=sys.stderr, flush=True)


def fmt(x, digits=3):
    return f"{x:.{digits}g}" if x is not None else "n/a"


def ratio(a, b):
    return f"{a / b:.2f}×" if a and b else "n/a"


def vkattn_cell(r, value):
    if not r.get("ok") and "median_ms" not in r:
        return "error"
    return fmt(value) + ("" if r["ok"] else " FAIL")


def decode_table(args, peer, workdir, failures, record):
    h, hkv, d = args.heads, args.kv_heads, args.dim
    lines = [f"Decode: B=1, one query row, H={h}, Hkv={hkv}, D={d}, f16 K/V; GB/s of K and V read.", "",
             "| Lk | vkattn kernel | vkattn ms | vkattn GB/s | PyTorch SDPA GB/s | vkattn / PyTorch |", "|---|---|---|---|---|---|"]
    for lk in args.decode_lengths:
        kv_bytes = 2 * hkv * lk * d * 2
        r = vkattn_bench(args, workdir, "attention", "--f16", "--batch", 1, "--heads", h, "--kv-heads", hkv,
                         "--queries", 1, "--len", lk, "--dim", d)
        vk = kv_bytes / (r["median_ms"] * 1e6) if "median_ms" in r else None
        if not r["ok"]:
            failures.append(f"decode Lk={lk}: {r['error']}")
        pt = None
        if peer.on:
            q, k, v = peer.rand(1, h, 1, d), peer.rand(1, hkv, lk, d), peer.rand(1, hkv, lk, d)
            pt = kv_bytes / (peer.ms(lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)) * 1e6)
            del q, k, v
        record.append({"table": "decode", "lk": lk, "vkattn": r, "vkattn_gbs": vk, "torch_gbs": pt})
        lines.append(f"| {lk} | {r.get('variant', '-')} | {fmt(r.get('median_ms'))} | {vkattn_cell(r, vk)} | "
                     f"{fmt(pt)} | {ratio(vk, pt)} |")
        progress(lines)
    return lines


def linear_table(args, peer, workdir, failures, record):
    lines = ["Linear, f16 storage, fp32 accumulation; TFLOP/s (2·M·N·K). vkattn computes gelu(x Wᵀ + b) with "
             "its own choice of kernel and with the workgroup-scope cooperative-matrix-2 kernel (coopmat2-wg, "
             "where the device offers it); PyTorch x Wᵀ alone.", "",
             "| M×N×K | vkattn TFLOP/s | vkattn coopmat2-wg TFLOP/s | PyTorch matmul TFLOP/s | vkattn / PyTorch |",
             "|---|---|---|---|---|"]
    for m, n, k in args.linear_shapes:
        flops = 2.0 * m * n * k
        r = vkattn_bench(args, workdir, "linear", "--f16", "--m", m, "--n", n, "--k", k)
        vk = flops / (r["median_ms"] * 1e9) if "median_ms" in r else None
        if not r["ok"]:
            failures.append(f"linear {m}x{n}x{k}: {r['error']}")
        # The workgroup-scope kernel, refused by name on devices without it.
        wg = vkattn_bench(args, workdir, "linear", "--f16", "--m", m, "--n", n, "--k", k,
                          env={"VKATTN_MATMUL_VARIANT": "coopmat2-wg"})
        wg_rate = flops / (wg["median_ms"] * 1e9) if "median_ms" in wg else None
        if not wg["ok"] and "cooperative-matrix" not in wg.get("error", ""):  # refused: a cell, not a failure
            failures.append(f"linear {m}x{n}x{k} (coopmat2-wg): {wg['error']}")
        pt = None
        if peer.on:
            x, w = peer.rand(m, k), peer.rand(n, k)
            pt = flops / (peer.ms(lambda: torch.matmul(x, w.t())) * 1e9)
            del x, w
        record.append({"table": "linear", "shape": [m, n, k], "vkattn": r, "vkattn_tflops": vk,
                       "vkattn_coopmat2_wg": wg, "vkattn_coopmat2_wg_tflops": wg_rate, "torch_tflops": pt})
        best = max([x for x in (vk, wg_rate) if x is not None], default=None)
        refused = not wg["ok"] and "cooperative-matrix" in wg.get("error", "")
        wg_cell = "not on this device" if refused else vkattn_cell(wg, wg_rate)
        lines.append(f"| {m}×{n}×{k} | {vkattn_cell(r, vk)} | {wg_cell} | {fmt(pt)} | {ratio(best, pt)} |")
        progress(lines)
    return lines


def rows_table(args, peer, workdir, failures, record):
    rows, cols = args.rows_shape
    b, h, length = args.rope_shape
    d = args.dim
    lines = ["Row kernels, f16 storage; GB/s (each element read once and written once).", "",
             "| kernel | shape | vkattn GB/s | PyTorch GB/s | vkattn / PyTorch |", "|---|---|---|---|---|"]
    cases = [("softmax", ["--rows", rows, "--cols", cols], (rows, cols), lambda x: torch.softmax(x * 0.125, -1)),
             ("layer_norm", ["--rows", rows, "--cols", cols], (rows, cols), lambda x: F.layer_norm(x, x.shape[-1:])),
             ("rms_norm", ["--rows", rows, "--cols", cols], (rows, cols), lambda x: F.rms_norm(x, x.shape[-1:])),
             ("rope", ["--batch", b, "--heads", h, "--len", length, "--dim", d], (b, h, length, d), None)]
    for kernel, flags, shape, torch_op in cases:
        nbytes = 2 * 2 * math.prod(shape)
        r = vkattn_bench(args, workdir, kernel, "--f16", *flags)
        vk = nbytes / (r["median_ms"] * 1e6) if "median_ms" in r else None
        if not r["ok"]:
            failures.append(f"{kernel} {shape}: {r['error']}")
        pt = None
        if peer.on:
            x = peer.rand(*shape)
            if torch_op is None:  # RoPE in PyTorch ops: rotate halves with cached cos/sin
                inv = 1.0 / (10000.0 ** (torch.arange(0, d, 2, device="cuda", dtype=torch.float32) / d))
                ang = torch.outer(torch.arange(length, device="cuda", dtype=torch.float32), inv)
                cos, sin = torch.cat([ang.cos()] * 2, -1).half(), torch.cat([ang.sin()] * 2, -1).half()

                def torch_op(x, cos=cos, sin=sin):
                    x1, x2 = x[..., : d // 2], x[..., d // 2:]
                    return x * cos + torch.cat([-x2, x1], -1) * sin
            pt = nbytes / (peer.ms(lambda: torch_op(x)) * 1e6)
            del x
        record.append({"table": "rows", "kernel": kernel, "shape": list(shape), "vkattn": r, "vkattn_gbs": vk,
                       "torch_gbs": pt})
        lines.append(f"| {kernel} | {'×'.join(map(str, shape))} | {vkattn_cell(r, vk)} | {fmt(pt)} | {ratio(vk, pt)} |")
        progress(lines)
    return lines


def main():
    args = parse_args()
    peer = Peer(args.repeats)
    failures, record = [], []
    copy = peer.copy_gbs() if peer.on else None
    out = [f"Beside {peer.label}" + (f"; device copy {copy:.0f} GB/s (bytes read + written)." if copy else "."), ""]
    tables = {"decode": decode_table, "linear": linear_table, "rows": rows_table}
    with tempfile.TemporaryDirectory(prefix="vkattn-kernels-") as workdir:
        for name in args.tables:
            out += tables[name](args, peer, workdir, failures, record) + [""]
    device = next((r["vkattn"].get("device") for r in record if r["vkattn"].get("device")), "an unknown device")
    text = "\n".join([f"vkattn on {device}. " + out[0]] + out[1:])
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": peer.label, "copy_gbs": copy, "rows": record}, f, indent=1)
    for f in failures:
        print("FAILED " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
