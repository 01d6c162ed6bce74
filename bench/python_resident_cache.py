#!/usr/bin/env python3
"""A decode step with its KV cache kept on the device (vkattn.Tensor) beside the same cache passed
as NumPy arrays, in one process.

Each step is one generated token of one layer: q (1, 1, H, D), the new k/v (1, 1, Hkv, D) appended
at position L - 1 of a dense cache (1, L_max, Hkv, D), attention over the L cached keys, causal.
With NumPy caches every call uploads the whole cache; with vkattn.Tensor caches only q and the new
rows go up (vkattn.transfer_bytes() counts both). Before timing, both paths run on identical
inputs and must give identical outputs, and the output is checked against a float64 reference
(all heads). The median of --steps timed steps is reported per cache length, with the bytes each
step moved and the effective K/V read rate (cache bytes read per step / step time).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_resident_cache.py --lengths 4096,8192,16384,32768
"""
import argparse
import statistics
import sys
import time

import numpy as np

import vkattn


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--lengths", default="4096,8192,16384,32768", help="cached tokens per step")
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--dtype", choices=["float16", "float32"], default="float16")
    p.add_argument("--steps", type=int, default=5, help="timed steps per path (median reported)")
    p.add_argument("--device", help="vkattn device (index or name substring)")
    return p.parse_args()


def reference(q, k, v):
    """float64 causal decode: q (1, 1, H, D) over k/v (1, L, Hkv, D) -> (1, 1, H, D)."""
    h, hkv = q.shape[2], k.shape[2]
    q64 = q[0, 0].astype(np.float64)
    k64 = np.repeat(k[0].astype(np.float64), h // hkv, axis=1)  # (L, H, D)
    v64 = np.repeat(v[0].astype(np.float64), h // hkv, axis=1)
    s = np.einsum("hd,lhd->hl", q64, k64) / np.sqrt(q.shape[3])
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("hl,lhd->hd", p, v64)[None, None]


def timed(step, steps):
    step()  # warm: pipelines, first-touch of the memory
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    args = parse_args()
    if args.device is not None:
        vkattn.use_device(args.device)
    rng = np.random.default_rng(0)
    dt = np.dtype(args.dtype)
    tol = 2e-3 if dt == np.float16 else 2e-5
    print(f"device: {vkattn.current_device()}; B=1, H={args.heads}, Hkv={args.kv_heads}, D={args.dim}, "
          f"{args.dtype} cache, one decode step (append 1 token, attend to L)")
    print("| cached tokens L | cache (K+V) | NumPy cache ms/step | uploaded/step | vkattn.Tensor cache ms/step | "
          "uploaded/step | speed-up | K/V read, resident |")
    print("|---|---|---|---|---|---|---|---|")
    failed = False
    for length in (int(x) for x in args.lengths.split(",")):
        shape = (1, length, args.kv_heads, args.dim)
        k_cache = rng.standard_normal(shape).astype(dt)
        v_cache = rng.standard_normal(shape).astype(dt)
        q = rng.standard_normal((1, 1, args.heads, args.dim)).astype(dt)
        k_new = rng.standard_normal((1, 1, args.kv_heads, args.dim)).astype(dt)
        v_new = rng.standard_normal((1, 1, args.kv_heads, args.dim)).astype(dt)
        tk, tv = vkattn.asarray(k_cache), vkattn.asarray(v_cache)
        pos = np.array([length - 1], np.int32)  # every step rewrites the last slot: L keys each time

        def host_step():
            return vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, k_new, v_new, cache_seqlens=pos, causal=True)

        def resident_step():
            return vkattn.flash_attn_with_kvcache(q, tk, tv, k_new, v_new, cache_seqlens=pos, causal=True)

        before = vkattn.transfer_bytes()
        host_out = host_step()
        middle = vkattn.transfer_bytes()
        resident_out = resident_step()
        after = vkattn.transfer_bytes()
        error = np.abs(resident_out.astype(np.float64) - reference(q, k_cache, v_cache)).max()
        if not np.array_equal(host_out, resident_out) or error > tol:
            print(f"L={length}: outputs differ (paths equal: {np.array_equal(host_out, resident_out)}, "
                  f"max error {error:.2e} > {tol})", file=sys.stderr)
            failed = True
            continue
        host_s, resident_s = timed(host_step, args.steps), timed(resident_step, args.steps)
        cache_bytes = k_cache.nbytes + v_cache.nbytes
        up_host = middle["host_to_device"] - before["host_to_device"]
        up_resident = after["host_to_device"] - middle["host_to_device"]
        print(f"| {length} | {cache_bytes / 2**20:.0f} MiB | {host_s * 1e3:.1f} | {up_host / 2**20:.1f} MiB | "
              f"{resident_s * 1e3:.1f} | {up_resident / 2**10:.1f} KiB | {host_s / resident_s:.2f}× | "
              f"{cache_bytes / resident_s / 1e9:.2f} GB/s |")
        del tk, tv
    print(f"checked: NumPy and vkattn.Tensor paths equal bit for bit; max error vs float64 within {tol}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
