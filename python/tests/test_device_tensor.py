"""vkattn.Tensor: arrays kept on the device. Each function given vkattn.Tensors computes what it
computes on the same NumPy arrays (the same kernels: equal bit for bit), returns vkattn.Tensors
when its first array argument is one, and copies no more than it must: vkattn.transfer_bytes()
counts every byte between host arrays and the device. flash_attn_with_kvcache appends to
vkattn.Tensor caches on the device; decode steps are checked against the float64 reference."""
import numpy as np
import pytest

import vkattn
from test_flash_attn import ATOL, RTOL, flash_ref, packed_qkv, qkv


def on_device(*arrays, **kw):
    return [vkattn.asarray(a, **kw) for a in arrays]


def same(tensor, array):
    """A vkattn.Tensor result equal, bit for bit, to the NumPy-path result."""
    assert isinstance(tensor, vkattn.Tensor)
    assert tensor.shape == array.shape and tensor.numpy().dtype == array.dtype
    np.testing.assert_array_equal(tensor.numpy(), array)


def moved(before):
    after = vkattn.transfer_bytes()
    return {key: after[key] - before[key] for key in after}


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_asarray_round_trip(rng, dtype):
    x = (rng.standard_normal((3, 4, 5)) * 100).astype(dtype)
    t = vkattn.asarray(x)
    assert (t.shape, t.dtype, t.ndim, t.size, len(t)) == (x.shape, np.dtype(dtype).name, 3, 60, 3)
    assert t.nbytes == x.nbytes and "vkattn.Tensor(shape=(3, 4, 5)" in repr(t)
    np.testing.assert_array_equal(t.numpy(), x)
    np.testing.assert_array_equal(np.asarray(t), x)  # __array__
    assert vkattn.asarray(t) is t
    assert vkattn.asarray(x.astype(np.float64)).dtype == "float32" if dtype != np.int32 else True


def test_asarray_converts_and_refuses(rng):
    x = rng.standard_normal((2, 64)).astype(np.float32)
    t = vkattn.asarray(x)
    half = vkattn.asarray(t, dtype="float16")
    assert half.dtype == "float16"
    np.testing.assert_array_equal(half.numpy(), x.astype(np.float16))
    for fmt in ["bf16", "q8_0", "q4_0"]:
        stored = vkattn.asarray(x, dtype=fmt)
        assert stored.dtype == fmt and stored.shape == x.shape
        np.testing.assert_array_equal(stored.numpy(), vkattn.dequantize(vkattn.quantize(x, fmt), fmt))
        np.testing.assert_array_equal(vkattn.dequantize(stored, fmt), stored.numpy())
    assert vkattn.asarray(x, dtype="q8_0").nbytes == 2 * 2 * 34
    np.testing.assert_array_equal(vkattn.quantize(t, "q4_0"), vkattn.quantize(x, "q4_0"))
    with pytest.raises(ValueError, match="'dtype'"):
        vkattn.asarray(x, dtype="int8")
    with pytest.raises(ValueError, match="multiple of 32"):
        vkattn.asarray(x[:, :30], dtype="q8_0")
    with pytest.raises(TypeError, match="'array'"):
        vkattn.asarray(np.array(["a", "b"]))
    with pytest.raises(ValueError, match="'array'"):
        vkattn.asarray(np.float32(1.0))
    with pytest.raises(ValueError, match="dimension"):
        vkattn.asarray(np.zeros((3, 0), np.float32))


def test_row_ops_take_and_return_tensors(rng):
    x = rng.standard_normal((2, 3, 5, 16)).astype(np.float32)
    w, b = rng.standard_normal(16).astype(np.float32), rng.standard_normal(16).astype(np.float32)
    tx, tw, tb = on_device(x, w, b)
    same(vkattn.softmax(tx), vkattn.softmax(x))
    same(vkattn.softmax(tx, axis=1), vkattn.softmax(x, axis=1))
    same(vkattn.layer_norm(tx, tw, tb), vkattn.layer_norm(x, w, b))
    same(vkattn.rms_norm(tx, tw), vkattn.rms_norm(x, w))
    positions = np.array([3, 1, 4, 1, 5], np.int32)
    same(vkattn.rope(tx, vkattn.asarray(positions)), vkattn.rope(x, positions))
    # A NumPy first argument gives NumPy back, whatever the others are.
    out = vkattn.layer_norm(x, tw, tb)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, vkattn.layer_norm(x, w, b))
    # Results chain on the device: only the final read crosses back.
    before = vkattn.transfer_bytes()
    chained = vkattn.softmax(vkattn.rms_norm(vkattn.layer_norm(tx, tw, tb), tw))
    assert moved(before) == {"host_to_device": 0, "device_to_host": 0}
    np.testing.assert_array_equal(chained.numpy(), vkattn.softmax(vkattn.rms_norm(vkattn.layer_norm(x, w, b), w)))


def test_attention_functions_take_and_return_tensors(rng):
    q = rng.standard_normal((2, 4, 6, 16)).astype(np.float32)
    k = rng.standard_normal((2, 2, 9, 16)).astype(np.float32)
    v = rng.standard_normal((2, 2, 9, 8)).astype(np.float32)
    bias = rng.standard_normal((6, 9)).astype(np.float32)
    tq, tk, tv, tbias = on_device(q, k, v, bias)
    out, lse = vkattn.scaled_dot_product_attention(tq, tk, tv, attn_mask=tbias, enable_gqa=True, return_lse=True)
    ref_out, ref_lse = vkattn.scaled_dot_product_attention(q, k, v, attn_mask=bias, enable_gqa=True, return_lse=True)
    same(out, ref_out)
    same(lse, ref_lse)
    same(vkattn.scaled_dot_product_attention(tq, k, tv, is_causal=True, enable_gqa=True),  # mixed inputs
         vkattn.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True))
    same(vkattn.attention_weights(tq, tk, heads=[0, 3]), vkattn.attention_weights(q, k, heads=[0, 3]))
    qa, ka, va = (rng.standard_normal(s).astype(np.float32) for s in [(2, 3, 8), (2, 5, 6), (2, 5, 4)])
    wq, wk, vv = (rng.standard_normal(s).astype(np.float32) for s in [(10, 8), (10, 6), (10,)])
    same(vkattn.additive_attention(*on_device(qa, ka, va, wq, wk, vv)), vkattn.additive_attention(qa, ka, va, wq, wk, vv))


def test_flash_attn_functions_take_and_return_tensors(rng):
    q, k, v = qkv(rng, 2, 5, 7, 4, 2, 32)
    tq, tk, tv = on_device(q, k, v)
    out, lse, _ = vkattn.flash_attn_func(tq, tk, tv, causal=True, return_attn_probs=True)
    ref_out, ref_lse, _ = vkattn.flash_attn_func(q, k, v, causal=True, return_attn_probs=True)
    same(out, ref_out)
    same(lse, ref_lse)
    ref, _ = flash_ref(q, k, v, causal=True)
    np.testing.assert_allclose(out.numpy(), ref, atol=ATOL, rtol=RTOL)
    # K/V kept in a storage format are read as they are (no kv_dtype needed).
    sk, sv = on_device(k, v, dtype="q8_0")
    same(vkattn.flash_attn_func(tq, sk, sv), vkattn.flash_attn_func(q, k, v, kv_dtype="q8_0"))
    pq, pk, pv, cu_q, cu_k = packed_qkv(rng, [3, 0, 5], [4, 2, 6], 4, 2, 16)
    args = (cu_q, cu_k, 5, 6)
    same(vkattn.flash_attn_varlen_func(*on_device(pq, pk, pv), vkattn.asarray(cu_q), cu_k, 5, 6, causal=True),
         vkattn.flash_attn_varlen_func(pq, pk, pv, *args, causal=True))


def test_save_attention_takes_a_tensor(tmp_path, rng):
    q, k = rng.standard_normal((2, 1, 3, 4, 8)).astype(np.float32)
    weights = vkattn.attention_weights(vkattn.asarray(q), vkattn.asarray(k))  # (1, 3, 4, 4) on the device
    assert isinstance(weights, vkattn.Tensor)
    folder = vkattn.save_attention(tmp_path / "maps", weights, ["a", "b", "c", "d"])
    np.testing.assert_array_equal(np.load(f"{folder}/attention.npy"), vkattn.attention_weights(q, k))


def test_attention_layer_takes_tensors(rng):
    d, h = 16, 4
    wq, wk, wv, wo = (rng.standard_normal((d, d)).astype(np.float32) * 0.2 for _ in range(4))
    x = rng.standard_normal((2, 5, d)).astype(np.float32)
    host = vkattn.MultiHeadAttention(wq, wk, wv, wo, num_heads=h)
    resident = vkattn.MultiHeadAttention(*on_device(wq, wk, wv, wo), num_heads=h)
    out, weights = resident(vkattn.asarray(x), causal=True, need_weights=True)
    ref_out, ref_weights = host(x, causal=True, need_weights=True)
    same(out, ref_out)
    same(weights, ref_weights)


def cache_inputs(rng, b, lmax, h, hkv, d, lens):
    k_cache = np.zeros((b, lmax, hkv, d), np.float32)
    v_cache = np.zeros((b, lmax, hkv, d), np.float32)
    for i, n in enumerate(lens):
        k_cache[i, :n] = rng.standard_normal((n, hkv, d))
        v_cache[i, :n] = rng.standard_normal((n, hkv, d))
    return k_cache, v_cache


def test_kvcache_decode_steps_on_the_device(rng):
    """Decode steps appending to vkattn.Tensor caches: the same outputs as NumPy caches, the same
    caches afterwards, and per step only q and the new rows go up and out (and lse) comes back."""
    b, lmax, h, hkv, d = 2, 48, 4, 2, 32
    lens = np.array([5, 17], np.int32)
    k_cache, v_cache = cache_inputs(rng, b, lmax, h, hkv, d, lens)
    tk_cache, tv_cache = on_device(k_cache, v_cache)
    sinks = rng.standard_normal(h).astype(np.float32)
    for step, new in enumerate([1, 1, 3, 1]):
        q, k_new, v_new = qkv(rng, b, new, new, h, hkv, d)
        before = vkattn.transfer_bytes()
        out, lse = vkattn.flash_attn_with_kvcache(q, tk_cache, tv_cache, k_new, v_new, cache_seqlens=lens,
                                                  causal=True, sinks=sinks, return_softmax_lse=True)
        assert moved(before) == {"host_to_device": q.nbytes + k_new.nbytes + v_new.nbytes + sinks.nbytes,
                                 "device_to_host": out.nbytes + lse.nbytes}
        ref_out, ref_lse = vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, k_new, v_new, cache_seqlens=lens,
                                                          causal=True, sinks=sinks, return_softmax_lse=True)
        np.testing.assert_array_equal(out, ref_out)
        np.testing.assert_array_equal(lse, ref_lse)
        lens = lens + new
        for i in range(b):
            ref, _ = flash_ref(q[i:i + 1], k_cache[i:i + 1, :lens[i]], v_cache[i:i + 1, :lens[i]], causal=True,
                               sinks=sinks)
            np.testing.assert_allclose(out[i], ref[0], atol=ATOL, rtol=RTOL)
    np.testing.assert_array_equal(tk_cache.numpy(), k_cache)
    np.testing.assert_array_equal(tv_cache.numpy(), v_cache)
    # The NumPy caches are uploaded by every call.
    before = vkattn.transfer_bytes()
    vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, cache_seqlens=lens)
    assert moved(before)["host_to_device"] >= k_cache.nbytes + v_cache.nbytes


@pytest.mark.parametrize("fmt", ["float16", "q8_0"])
def test_kvcache_paged_on_the_device(rng, fmt):
    num_blocks, block, hkv, h, d = 10, 8, 2, 4, 32
    k_cache = rng.standard_normal((num_blocks, block, hkv, d)).astype(np.float32)
    v_cache = rng.standard_normal((num_blocks, block, hkv, d)).astype(np.float32)
    table = np.array([[7, 2, 9], [0, 4, 5]], np.int32)
    lens = np.array([15, 8], np.int32)
    q, k_new, v_new = qkv(rng, 2, 2, 2, h, hkv, d)
    if fmt == "float16":
        q, k_new, v_new, k_cache, v_cache = (x.astype(np.float16) for x in (q, k_new, v_new, k_cache, v_cache))
        host_kw = {}
    else:
        host_kw = {"kv_dtype": fmt}
    tk_cache, tv_cache = on_device(k_cache, v_cache, dtype=fmt)
    tq = vkattn.asarray(q)
    out = vkattn.flash_attn_with_kvcache(tq, tk_cache, tv_cache, k_new, vkattn.asarray(v_new), cache_seqlens=lens,
                                         block_table=table, alibi_slopes=np.full(h, 0.1, np.float32))
    ref_out = vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, k_new, v_new, cache_seqlens=lens,
                                             block_table=table, alibi_slopes=np.full(h, 0.1, np.float32), **host_kw)
    same(out, ref_out)  # the NumPy caches now hold the new rows too
    stored = k_cache if fmt == "float16" else vkattn.dequantize(vkattn.quantize(k_cache, fmt), fmt)
    np.testing.assert_array_equal(tk_cache.numpy(), stored)
    for i in range(2):
        n = lens[i] + 2
        keys = tk_cache.numpy()[table[i]].reshape(-1, hkv, d)[:n]
        vals = tv_cache.numpy()[table[i]].reshape(-1, hkv, d)[:n]
        ref, _ = flash_ref(q[i:i + 1], keys[None], vals[None], alibi=np.full(h, 0.1))
        np.testing.assert_allclose(out.numpy()[i], ref[0], atol=5e-3 if fmt == "float16" else ATOL,
                                   rtol=5e-3 if fmt == "float16" else RTOL)


def test_kvcache_batch_index_leftpad_and_rotary_on_the_device(rng):
    b, lmax, h, hkv, d = 3, 24, 2, 1, 16
    k_cache, v_cache = cache_inputs(rng, 4, lmax, h, hkv, d, [20, 20, 20, 20])
    tk_cache, tv_cache = on_device(k_cache, v_cache)
    q, k_new, v_new = qkv(rng, b, 1, 1, h, hkv, d)
    idx = np.array([3, 0, 2], np.int32)
    lens = np.array([9, 14, 4], np.int32)
    # Rows picked by cache_batch_idx, appended to in place.
    out = vkattn.flash_attn_with_kvcache(q, tk_cache, tv_cache, k_new, v_new, cache_seqlens=lens,
                                         cache_batch_idx=idx)
    np.testing.assert_array_equal(out, vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, k_new, v_new,
                                                                      cache_seqlens=lens, cache_batch_idx=idx))
    np.testing.assert_array_equal(tk_cache.numpy(), k_cache)
    lens = lens + 1
    # Left padding, a sequence with no key left (zeros, lse = its sink), and sinks.
    pad = np.array([2, 0, 5], np.int32)
    sinks = np.array([0.5, -1.0], np.float32)
    out, lse = vkattn.flash_attn_with_kvcache(vkattn.asarray(q), tk_cache, tv_cache, cache_seqlens=lens,
                                              cache_batch_idx=idx, cache_leftpad=pad, sinks=sinks,
                                              return_softmax_lse=True)
    assert isinstance(out, vkattn.Tensor) and isinstance(lse, vkattn.Tensor)
    out, lse = out.numpy(), lse.numpy()
    for i in range(2):  # sequence 2 has no key: checked below
        row = idx[i]
        ref, ref_lse = flash_ref(q[i:i + 1], k_cache[row:row + 1, pad[i]:lens[i]], v_cache[row:row + 1, pad[i]:lens[i]],
                                 sinks=sinks)
        np.testing.assert_allclose(out[i], ref[0], atol=ATOL, rtol=RTOL)
        np.testing.assert_allclose(lse[i], ref_lse[0], atol=2e-5, rtol=1e-5)
    assert np.all(out[2] == 0)
    np.testing.assert_allclose(lse[2, :, 0], sinks, rtol=1e-6)
    # Rotary: the new keys turn before they are stored on the device.
    angle = rng.uniform(0, 2 * np.pi, (lmax, 4))
    cos, sin = np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)
    out = vkattn.flash_attn_with_kvcache(vkattn.asarray(q), tk_cache, tv_cache, vkattn.asarray(k_new), v_new,
                                         rotary_cos=cos, rotary_sin=sin, cache_seqlens=lens, cache_batch_idx=idx,
                                         causal=True)
    ref = vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, k_new, v_new, rotary_cos=cos, rotary_sin=sin,
                                         cache_seqlens=lens, cache_batch_idx=idx, causal=True)
    same(out, ref)
    np.testing.assert_array_equal(tk_cache.numpy(), k_cache)


def test_tensor_refusals(rng):
    q, k, v = qkv(rng, 1, 2, 4, 2, 2, 32)
    tq, tk, tv = on_device(q, k, v)
    with pytest.raises(ValueError, match="'key'.*float16"):
        vkattn.scaled_dot_product_attention(tq, vkattn.asarray(k, dtype="float16"), tv)
    with pytest.raises(ValueError, match="'q'.*q8_0"):
        vkattn.flash_attn_func(vkattn.asarray(q, dtype="q8_0"), tk, tv)
    with pytest.raises(ValueError, match="'x'.*bf16"):
        vkattn.softmax(vkattn.asarray(q, dtype="bf16"))
    with pytest.raises(TypeError, match="'x'.*int32"):
        vkattn.softmax(vkattn.asarray(np.arange(4)))
    caches = on_device(np.zeros((1, 8, 2, 32), np.float32), np.zeros((1, 8, 2, 32), np.float32))
    with pytest.raises(TypeError, match="'v_cache'"):
        vkattn.flash_attn_with_kvcache(q, caches[0], np.zeros((1, 8, 2, 32), np.float32))
    with pytest.raises(ValueError, match="'kv_dtype'"):
        vkattn.flash_attn_with_kvcache(q, *caches, kv_dtype="q8_0")
    with pytest.raises(ValueError, match="'k_cache'.*float16"):
        vkattn.flash_attn_with_kvcache(q, *on_device(np.zeros((1, 8, 2, 32), np.float16),
                                                     np.zeros((1, 8, 2, 32), np.float16)))
    with pytest.raises(ValueError, match="overflows"):
        vkattn.flash_attn_with_kvcache(q, *caches, k[:, :1], v[:, :1], cache_seqlens=8)
    np.testing.assert_array_equal(caches[0].numpy(), 0)  # a refused append writes nothing


def test_tensors_of_a_replaced_device_are_refused(rng):
    x = rng.standard_normal((2, 8)).astype(np.float32)
    t = vkattn.asarray(x)
    vkattn.use_device(0)
    with pytest.raises(ValueError, match="'x'.*use_device"):
        vkattn.softmax(t)
    with pytest.raises(ValueError, match="use_device"):
        t.numpy()
    np.testing.assert_array_equal(vkattn.softmax(vkattn.asarray(x)).numpy(), vkattn.softmax(x))
