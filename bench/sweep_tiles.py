#!/usr/bin/env python3
"""Which kernel and tile configuration is fastest on this device: a sweep, each run verified.

Every row is one `vkattn bench` run (output checked against the double-precision reference, then
timed with GPU timestamps, median of --repeats):

* attention, f16, B×H×L×D = 2×16×4096×128: every kernel variant, the cooperative-matrix kernel
  under each flavour (VKATTN_COOPMAT=khr, nv), the KHR kernel with its softmax's S and P in shared
  memory, S in registers and both in registers (VKATTN_ATTENTION_SOFTMAX: before and after the
  register softmax, as far as the device's layout allows), then the cooperative-matrix kernels at each tile
  configuration VKATTN_ATTENTION_TILE=ROWSxKEYSxSTAGES (query subgroups, keys per tile, K/V
  buffers);
* linear, f16, 4096³: the cooperative-matrix kernel at each VKATTN_MATMUL_TILE=FRAGSxBKxSTAGES
  (fragments per subgroup side, K per slice, slice buffers) and the tiled kernel.

A configuration the device cannot hold (shared memory) is listed with vkattn's reason. The tile
sweeps run at each --tile-dims head dim. After the table, each kernel's verified tiles ranked
fastest first, with C++ rows in the form of runtime/src/ops/tile_rankings.cpp, Auto's table: a run
on a new GPU adds its rows there and this report as the section they cite.

    python3 bench/sweep_tiles.py --vkattn build/vkattn --out sweep.md
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import require_vkattn, vkattn_bench, vkattn_parser  # noqa: E402

ATTENTION_TILES = ["4x64x2", "4x32x2", "4x64x1", "4x32x1", "2x64x2", "2x32x2", "4x16x2", "2x32x1"]
MATMUL_TILES = ["4x32x2", "4x32x1", "2x32x2", "2x32x1", "4x16x2", "2x16x2", "2x16x1"]


def parse_args():
    p = vkattn_parser(__doc__.split("\n")[0])
    p.add_argument("--attention", default="2x16x4096x128", help="BxHxLxD of the attention rows")
    p.add_argument("--linear", default="4096x4096x4096", help="MxNxK of the linear rows")
    p.add_argument("--repeats", type=int, default=20, help="timed runs of each configuration (median reported)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds allowed to each run")
    p.add_argument("--out", help="write the Markdown table here")
    p.add_argument("--tile-dims", default="64,128", help="head dims of the attention tile sweeps")
    p.add_argument("--quick", action="store_true", help="small shapes (a smoke test on a CPU driver)")
    a = p.parse_args()
    if a.quick:
        a.attention, a.linear, a.repeats, a.tile_dims = "1x2x128x64", "64x64x64", 2, "64"
    a.tile_dims = [int(v) for v in a.tile_dims.split(",")]
    a.attention = [int(v) for v in a.attention.split("x")]
    a.linear = [int(v) for v in a.linear.split("x")]
    if len(a.attention) != 4 or len(a.linear) != 3:
        p.error("--attention takes BxHxLxD and --linear MxNxK")
    require_vkattn(p, a)
    return a


def rankings(runs):
    """Each family's verified tiles, fastest first: runs are (family, tile "AxBxC", TFLOP/s or None).

    >>> rankings([("linear coopmat", "2x32x1", 27.1), ("linear coopmat", "4x32x2", 17.8),
    ...           ("linear coopmat", "4x64x2", None), ("attention coopmat, D128", "4x32x2", 38.5)])
    {'linear coopmat': [('2x32x1', 27.1), ('4x32x2', 17.8)], 'attention coopmat, D128': [('4x32x2', 38.5)]}
    """
    ranked = {}
    for family, tile, rate in runs:
        if rate is not None:
            ranked.setdefault(family, []).append((tile, rate))
    return {family: sorted(tiles, key=lambda t: -t[1]) for family, tiles in ranked.items()}


def ranking_lines(ranked, device):
    """The rankings as Markdown (tiles written A×B×C, as the documents write them) and as C++ rows.

    >>> print("\\n".join(ranking_lines({"linear coopmat": [("2x32x1", 27.1), ("4x16x2", 21.7)]}, "GPU")))
    Tile rankings on GPU, fastest first (verified runs; TFLOP/s):
    <BLANKLINE>
    - linear coopmat: 2×32×1 27.1, 4×16×2 21.7
    <BLANKLINE>
    As rows of runtime/src/ops/tile_rankings.cpp:
    <BLANKLINE>
    ```cpp
    // linear coopmat
    constexpr RankedTile kTiles[] = {{{2, 32, 1}, "27.1 TFLOP/s"}, {{4, 16, 2}, "21.7 TFLOP/s"}};
    ```
    <BLANKLINE>
    """
    if not ranked:
        return [f"Tile rankings on {device}: no tile configuration ran (no cooperative-matrix kernel here).", ""]
    lines = [f"Tile rankings on {device}, fastest first (verified runs; TFLOP/s):", ""]
    for family, tiles in ranked.items():
        lines.append(f"- {family}: " + ", ".join(f"{t.replace('x', '×')} {r:.3g}" for t, r in tiles))
    lines += ["", "As rows of runtime/src/ops/tile_rankings.cpp:", "", "```cpp"]
    for family, tiles in ranked.items():
        cells = ", ".join("{{%s}, \"%.3g TFLOP/s\"}" % (", ".join(t.split("x")), r) for t, r in tiles)
        lines += [f"// {family}", f"constexpr RankedTile kTiles[] = {{{cells}}};"]
    return lines + ["```", ""]


def row(args, workdir, label, kernel, flags, env, flops, rows):
    r = vkattn_bench(args, workdir, kernel, *flags, env=env)
    if "median_ms" in r:
        rate = f"{flops / (r['median_ms'] * 1e9):.3g}" + ("" if r["ok"] else " FAIL")
        cells = [label, r.get("variant") or "-", f"{r['median_ms']:.3g}", rate, ""]
    else:
        cells = [label, "-", "-", "-", r["error"]]
    rows.append(cells)
    print(" | ".join(cells), file=sys.stderr, flush=True)
    return r


def main():
    args = parse_args()
    b, h, length, d = args.attention
    m, n, k = args.linear
    attention = ["attention", ["--f16", "--batch", b, "--heads", h, "--len", length, "--dim", d]]
    attention_flops = 4.0 * b * h * length * length * d
    linear = ["linear", ["--f16", "--m", m, "--n", n, "--k", k]]
    linear_flops = 2.0 * m * n * k
    rows, failures = [], 0
    with tempfile.TemporaryDirectory(prefix="vkattn-sweep-") as workdir:
        runs = [("attention auto", attention, {}, attention_flops),
                ("attention auto, causal", [attention[0], attention[1] + ["--causal"]], {}, attention_flops / 2)]
        runs += [(f"attention {v}", [attention[0], attention[1] + ["--kernel", v]], {}, attention_flops)
                 for v in ("coopmat2", "tiled")]
        runs += [(f"attention coopmat, VKATTN_COOPMAT={f}", [attention[0], attention[1] + ["--kernel", "coopmat"]],
                  {"VKATTN_COOPMAT": f}, attention_flops) for f in ("khr", "nv")]
        runs += [(f"attention coopmat, VKATTN_ATTENTION_SOFTMAX={s}",
                  [attention[0], attention[1] + ["--kernel", "coopmat"]],
                  {"VKATTN_COOPMAT": "khr", "VKATTN_ATTENTION_SOFTMAX": s}, attention_flops)
                 for s in ("shared", "s-registers", "registers")]
        tiled = {}  # label: (family, tile)
        for dim in args.tile_dims:
            shape = ["--f16", "--batch", b, "--heads", h * d // dim, "--len", length, "--dim", dim]
            for v in ("coopmat", "coopmat2"):
                for t in ATTENTION_TILES:
                    label = f"attention {v}, D{dim}, tile {t}"
                    tiled[label] = (f"attention {v}, D{dim}", t)
                    runs.append((label, ["attention", shape + ["--kernel", v]], {"VKATTN_ATTENTION_TILE": t},
                                 4.0 * b * (h * d // dim) * length * length * dim))
        runs += [("linear auto", linear, {}, linear_flops),
                 ("linear tiled", linear, {"VKATTN_MATMUL_VARIANT": "tiled"}, linear_flops)]
        runs += [(f"linear coopmat, tile {t}", linear, {"VKATTN_MATMUL_VARIANT": "coopmat", "VKATTN_MATMUL_TILE": t},
                  linear_flops) for t in MATMUL_TILES]
        tiled.update({f"linear coopmat, tile {t}": ("linear coopmat", t) for t in MATMUL_TILES})
        ranked_runs, device = [], "this device"
        for label, (kernel, flags), env, flops in runs:
            r = row(args, workdir, label, kernel, flags, env, flops, rows)
            failures += "median_ms" in r and not r["ok"]
            device = r.get("device", device)
            if label in tiled:
                ok = r["ok"] and "median_ms" in r
                ranked_runs.append((*tiled[label], flops / (r["median_ms"] * 1e9) if ok else None))
    lines = [f"Attention f16 B×H×L×D = {b}×{h}×{length}×{d} and linear f16 {m}×{n}×{k}; TFLOP/s "
             "(causal: half the pairs).", "",
             "| configuration | kernel | ms | TFLOP/s | not run |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(c) + " |" for c in rows]
    lines += [""] + ranking_lines(rankings(ranked_runs), device)
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
