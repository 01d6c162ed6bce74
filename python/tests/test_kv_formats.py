"""K/V storage formats: vkattn.quantize / dequantize against a NumPy reading of the formats
(bf16 = the upper 16 bits of float32; ggml's Q8_0 and Q4_0 blocks: an f16 scale, then 32 int8 or
16 bytes of nibbles), and the flash-attn functions with kv_dtype against the float64 reference
on the decoded K/V."""
import numpy as np
import pytest

import vkattn
from test_flash_attn import ATOL, RTOL, flash_ref, packed_qkv, qkv


def decode_ref(data, dtype):
    """Independent decoder: the formats as their layouts define them."""
    if dtype == "bf16":
        return (data.astype(np.uint32) << 16).view(np.float32)
    per = 34 if dtype == "q8_0" else 18
    blocks = data.reshape(*data.shape[:-1], data.shape[-1] // per, per)
    scale = blocks[..., :2].copy().view(np.float16).astype(np.float32)  # (..., nblocks, 1)
    if dtype == "q8_0":
        vals = blocks[..., 2:].view(np.int8).astype(np.float32)
    else:
        qs = blocks[..., 2:]
        vals = np.concatenate([qs & 15, qs >> 4], axis=-1).astype(np.float32) - 8
    return (vals * scale).reshape(*data.shape[:-1], -1)


@pytest.mark.parametrize("fmt", ["bf16", "q8_0", "q4_0"])
def test_quantize_matches_the_layout(rng, fmt):
    x = (rng.standard_normal((3, 5, 64)) * np.geomspace(1e-3, 1e3, 64)).astype(np.float32)
    data = vkattn.quantize(x, fmt)
    assert data.dtype == (np.uint16 if fmt == "bf16" else np.uint8)
    assert data.shape == {"bf16": (3, 5, 64), "q8_0": (3, 5, 68), "q4_0": (3, 5, 36)}[fmt]
    y = vkattn.dequantize(data, fmt)
    np.testing.assert_array_equal(y, decode_ref(data, fmt))
    blocks = np.abs(x).reshape(3, 5, 2, 32).max(-1, keepdims=True)
    step = {"bf16": np.abs(x).reshape(3, 5, 2, 32) / 256, "q8_0": blocks / 127 * 0.57, "q4_0": blocks / 8 * 1.01}[fmt]
    assert np.all(np.abs((x - y).reshape(3, 5, 2, 32)) <= step)


def test_quantize_rounds_as_ggml():
    x = np.arange(-16, 16, dtype=np.float32)  # max |x| 16 at -16
    q8 = vkattn.quantize(x, "q8_0")
    assert q8[:2].view(np.float16)[0] == np.float16(16 / 127)
    assert q8[2:].view(np.int8)[[0, 16, 24, 31]].tolist() == [-127, 0, 64, 119]  # 63.5 rounds away from 0
    q4 = vkattn.quantize(x, "q4_0")
    assert q4[:2].view(np.float16)[0] == np.float16(2.0)  # d = -16 / -8
    assert q4[2:][[0, 3, 15]].tolist() == [0x80, 0xA2, 0xF8]  # 15 -> nibble 16, clamped to 15
    assert vkattn.quantize(np.float32([1.0 + 2 ** -8]), "bf16")[0] == 0x3F80  # ties to even


@pytest.mark.parametrize("fmt", ["q8_0", pytest.param("bf16", marks=pytest.mark.ci), pytest.param("q4_0", marks=pytest.mark.ci)])
@pytest.mark.parametrize("causal", [False, pytest.param(True, marks=pytest.mark.ci)])
def test_flash_attn_func_with_kv_dtype(rng, fmt, causal):
    q, k, v = qkv(rng, 2, 5, 37, 4, 2, 64)
    out, lse, _ = vkattn.flash_attn_func(q, k, v, causal=causal, return_attn_probs=True, kv_dtype=fmt)
    kd, vd = (vkattn.dequantize(vkattn.quantize(t, fmt), fmt) for t in (k, v))
    ref, ref_lse = flash_ref(q, kd, vd, causal=causal)
    np.testing.assert_allclose(out, ref, atol=ATOL * 3, rtol=RTOL)
    np.testing.assert_allclose(lse, ref_lse, atol=2e-5, rtol=1e-5)
    full, _ = flash_ref(q, k, v, causal=causal)
    assert np.abs(out - full).max() > 0  # the format was applied


@pytest.mark.parametrize("fmt", ["q8_0", pytest.param("q4_0", marks=pytest.mark.ci)])
def test_flash_attn_with_kvcache_quantized_pages(rng, fmt):
    num_blocks, block, hkv, h, d = 8, 16, 2, 4, 32
    k_cache = rng.standard_normal((num_blocks, block, hkv, d)).astype(np.float32)
    v_cache = rng.standard_normal((num_blocks, block, hkv, d)).astype(np.float32)
    table = np.array([[5, 1, 6], [0, 7, 2]], np.int32)
    seqlens = np.array([30, 3], np.int32)
    q, k_new, v_new = qkv(rng, 2, 2, 2, h, hkv, d)
    out = vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, k_new, v_new, cache_seqlens=seqlens,
                                         block_table=table, causal=True, kv_dtype=fmt)
    assert k_cache.dtype == np.float32  # the NumPy cache stays float; the new rows are appended
    for i in range(2):
        n = seqlens[i] + 2
        keys = k_cache[table[i]].reshape(-1, hkv, d)[:n]
        vals = v_cache[table[i]].reshape(-1, hkv, d)[:n]
        np.testing.assert_array_equal(keys[-2:], k_new[i])
        kd, vd = (vkattn.dequantize(vkattn.quantize(t, fmt), fmt) for t in (keys, vals))
        ref, _ = flash_ref(q[i:i + 1], kd[None], vd[None], causal=True)
        np.testing.assert_allclose(out[i], ref[0], atol=ATOL * 3, rtol=RTOL)


@pytest.mark.ci
def test_flash_attn_varlen_func_with_kv_dtype(rng):
    q, k, v, cu_q, cu_k = packed_qkv(rng, [3, 1, 5], [7, 40, 5], 4, 2, 64)
    out = vkattn.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 5, 40, causal=True, kv_dtype="q8_0")
    kd, vd = (vkattn.dequantize(vkattn.quantize(t, "q8_0"), "q8_0") for t in (k, v))
    for s in range(3):
        qs, ks = slice(cu_q[s], cu_q[s + 1]), slice(cu_k[s], cu_k[s + 1])
        ref, _ = flash_ref(q[None, qs], kd[None, ks], vd[None, ks], causal=True)
        np.testing.assert_allclose(out[qs], ref[0], atol=ATOL * 3, rtol=RTOL)


def test_kv_dtype_refusals(rng):
    q, k, v = qkv(rng, 1, 2, 8, 2, 2, 48)
    with pytest.raises(ValueError, match="kv_dtype"):
        vkattn.flash_attn_func(q, k, v, kv_dtype="int8")
    with pytest.raises(ValueError, match="kv_dtype.*multiples of 32"):
        vkattn.flash_attn_func(q, k, v, kv_dtype="q8_0")
    np.testing.assert_allclose(vkattn.flash_attn_func(q, k, v, kv_dtype="bf16"),  # any head dim in bf16
                               flash_ref(q, *(vkattn.dequantize(vkattn.quantize(t, "bf16"), "bf16") for t in (k, v)))[0],
                               atol=ATOL * 3, rtol=RTOL)
    with pytest.raises(ValueError, match="multiple of 32"):
        vkattn.quantize(np.zeros((2, 40), np.float32), "q4_0")
    with pytest.raises(TypeError, match="uint8"):
        vkattn.dequantize(np.zeros((2, 34), np.float32), "q8_0")
    with pytest.raises(ValueError, match="34-byte"):
        vkattn.dequantize(np.zeros((2, 40), np.uint8), "q8_0")
    with pytest.raises(ValueError, match="dtype"):
        vkattn.quantize(np.zeros(32, np.float32), "q5_1")
    with pytest.raises(ValueError, match="NaN"):
        vkattn.quantize(np.full(32, np.nan, np.float32), "q8_0")
    q, k, v = qkv(rng, 1, 2, 8, 2, 2, 32)
    k[0, 3, 1, 7] = np.nan
    with pytest.raises(ValueError, match="'k'.*NaN"):  # the encoder's complaint names the input
        vkattn.flash_attn_func(q, k, v, kv_dtype="q8_0")
    with pytest.raises(ValueError, match="'array'.*NaN"):
        vkattn.asarray(k, dtype="q4_0")


def test_flash_attn_with_kvcache_leftpad_kv_dtype(rng):
    # The per-sequence path (cache_leftpad) stores each sequence's keys in the format too.
    b, lmax, h, hkv, d = 2, 40, 4, 2, 32
    k_cache = rng.standard_normal((b, lmax, hkv, d)).astype(np.float32)
    v_cache = rng.standard_normal((b, lmax, hkv, d)).astype(np.float32)
    q = rng.standard_normal((b, 1, h, d)).astype(np.float32)
    seqlens, pad = np.array([20, 33], np.int32), np.array([3, 0], np.int32)
    out = vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, cache_seqlens=seqlens, cache_leftpad=pad,
                                         kv_dtype="q4_0")
    for i in range(b):
        kd, vd = (vkattn.dequantize(vkattn.quantize(c[i:i + 1, pad[i]:seqlens[i]], "q4_0"), "q4_0")
                  for c in (k_cache, v_cache))
        ref, _ = flash_ref(q[i:i + 1], kd, vd)
        np.testing.assert_allclose(out[i], ref[0], atol=ATOL * 3, rtol=RTOL)
