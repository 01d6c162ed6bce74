"""flash-attn's API (flash_attn_func, flash_attn_varlen_func, flash_attn_with_kvcache) against a
float64 NumPy reference written from flash-attn's definitions: [B, L, H, D] layout, causal and
windows aligned to the bottom-right corner, softcap, ALiBi, sinks; any head size; GQA."""
import numpy as np
import pytest

import vkattn

ATOL, RTOL = 2e-5, 1e-4  # f32 storage, as attention_rows.comp documents


def flash_ref(q, k, v, scale=None, causal=False, window_size=(-1, -1), softcap=0.0, alibi=None, sinks=None):
    """One sequence batch: q (B, Lq, H, D), k/v (B, Lk, Hkv, D|Dv) -> out (B, Lq, H, Dv), lse (B, H, Lq)."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    b, lq, h, d = q.shape
    lk, hkv = k.shape[1], k.shape[2]
    k, v = np.repeat(k, h // hkv, axis=2), np.repeat(v, h // hkv, axis=2)
    scale = 1 / np.sqrt(d) if scale is None else scale
    s = np.einsum("bihd,bjhd->bhij", q, k) * scale
    if softcap > 0:
        s = softcap * np.tanh(s / softcap)
    i = np.arange(lq)[:, None]
    j = np.arange(lk)[None, :]
    rel = j - (i + lk - lq)  # bottom-right diagonal
    if alibi is not None:
        slopes = np.broadcast_to(np.asarray(alibi, np.float64).reshape(-1, h) if np.ndim(alibi) == 2 else alibi, (b, h))
        s = s - slopes[:, :, None, None] * np.abs(rel)[None, None]
    left, right = window_size
    if causal:
        right = 0
    visible = np.ones((lq, lk), bool)
    if left >= 0:
        visible &= rel >= -left
    if right >= 0:
        visible &= rel <= right
    s = np.where(visible, s, -np.inf)
    m = s.max(-1, keepdims=True)
    if sinks is not None:
        m = np.maximum(m, np.asarray(sinks, np.float64)[None, :, None, None])
    m = np.where(np.isneginf(m), 0, m)
    e = np.exp(s - m)
    total = e.sum(-1, keepdims=True)
    if sinks is not None:
        total = total + np.exp(np.asarray(sinks, np.float64)[None, :, None, None] - m)
    p = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    out = np.einsum("bhij,bjhd->bihd", p, v)
    with np.errstate(divide="ignore"):
        lse = (np.log(total) + m)[..., 0]
    return out, np.where(total[..., 0] > 0, lse, -np.inf)


def qkv(rng, b, lq, lk, h, hkv, d, dv=None):
    dv = d if dv is None else dv
    return (rng.standard_normal((b, lq, h, d)).astype(np.float32),
            rng.standard_normal((b, lk, hkv, d)).astype(np.float32),
            rng.standard_normal((b, lk, hkv, dv)).astype(np.float32))


@pytest.mark.parametrize("d", [8, 12, pytest.param(100, marks=pytest.mark.ci)])
@pytest.mark.parametrize("causal", [False, True])
def test_flash_attn_func_any_head_dim(rng, d, causal):
    q, k, v = qkv(rng, 2, 7, 19, 4, 2, d)
    out, lse, probs = vkattn.flash_attn_func(q, k, v, causal=causal, return_attn_probs=True)
    ref, ref_lse = flash_ref(q, k, v, causal=causal)
    np.testing.assert_allclose(out, ref, atol=ATOL, rtol=RTOL)
    np.testing.assert_allclose(lse, ref_lse, atol=2e-5, rtol=1e-5)
    assert probs is None


def test_flash_attn_func_softcap_alibi_sinks_window(rng):
    q, k, v = qkv(rng, 3, 9, 30, 4, 1, 32, 24)
    q *= 3
    alibi = rng.uniform(0.01, 0.5, (3, 4)).astype(np.float32)
    sinks = rng.uniform(-1, 2, 4).astype(np.float32)
    kw = dict(causal=True, window_size=(10, -1), softcap=4.0)
    out = vkattn.flash_attn_func(q, k, v, alibi_slopes=alibi, sinks=sinks, **kw)
    np.testing.assert_allclose(out, flash_ref(q, k, v, alibi=alibi, sinks=sinks, **kw)[0], atol=ATOL, rtol=RTOL)
    out1 = vkattn.flash_attn_func(q, k, v, alibi_slopes=alibi[0], softmax_scale=0.3)
    np.testing.assert_allclose(out1, flash_ref(q, k, v, alibi=alibi[0], scale=0.3)[0], atol=ATOL, rtol=RTOL)


def test_flash_attn_func_matches_torch_math(rng, torch):
    # torch 1.13 has no scaled_dot_product_attention: the same math written in torch, float64.
    q, k, v = qkv(rng, 2, 16, 16, 4, 4, 64)
    t = [torch.from_numpy(x.astype(np.float64)).transpose(1, 2) for x in (q, k, v)]
    s = t[0] @ t[1].transpose(-1, -2) / 8.0
    s = s.masked_fill(~torch.ones(16, 16, dtype=torch.bool).tril(), float("-inf"))
    expected = (torch.softmax(s, -1) @ t[2]).transpose(1, 2).numpy()
    np.testing.assert_allclose(vkattn.flash_attn_func(q, k, v, causal=True), expected, atol=ATOL, rtol=RTOL)


def packed_qkv(rng, lens_q, lens_k, h, hkv, d):
    """Packed q (total_q, H, D), k and v (total_k, Hkv, D) and their int32 offsets."""
    q = rng.standard_normal((sum(lens_q), h, d)).astype(np.float32)
    k = rng.standard_normal((sum(lens_k), hkv, d)).astype(np.float32)
    v = rng.standard_normal((sum(lens_k), hkv, d)).astype(np.float32)
    offsets = [np.concatenate([[0], np.cumsum(lens)]).astype(np.int32) for lens in (lens_q, lens_k)]
    return q, k, v, offsets[0], offsets[1]


def test_flash_attn_varlen_func(rng):
    lens_q, lens_k = [3, 0, 7, 1], [5, 4, 7, 0]
    h, hkv, d = 4, 2, 16
    q, k, v, cu_q, cu_k = packed_qkv(rng, lens_q, lens_k, h, hkv, d)
    sinks = np.array([0.5, -1.0, 2.0, 0.0], np.float32)
    out, lse, _ = vkattn.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(lens_q), max(lens_k), causal=True,
                                                 sinks=sinks, return_attn_probs=True)
    assert out.shape == (sum(lens_q), h, d) and lse.shape == (h, sum(lens_q))
    for s in range(4):
        qs, ks = slice(cu_q[s], cu_q[s + 1]), slice(cu_k[s], cu_k[s + 1])
        if lens_q[s] == 0:
            continue
        if lens_k[s] == 0:  # no key: zeros, and only the sink in the denominator
            np.testing.assert_array_equal(out[qs], 0)
            np.testing.assert_allclose(lse[:, qs], np.repeat(sinks[:, None], lens_q[s], 1))
            continue
        ref, ref_lse = flash_ref(q[None, qs], k[None, ks], v[None, ks], causal=True, sinks=sinks)
        np.testing.assert_allclose(out[qs], ref[0], atol=ATOL, rtol=RTOL)
        np.testing.assert_allclose(lse[:, qs], ref_lse[0], atol=2e-5, rtol=1e-5)


def test_flash_attn_varlen_func_per_sequence_terms(rng):
    # ALiBi slopes per sequence, a window, softcap and GQA 8:2 in one packed call.
    lens_q, lens_k = [2, 6, 1], [9, 6, 40]
    h = 8
    q, k, v, cu_q, cu_k = packed_qkv(rng, lens_q, lens_k, h, 2, 32)
    alibi = rng.uniform(0.01, 0.5, (3, h)).astype(np.float32)
    out = vkattn.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 6, 40, window_size=(5, 2), softcap=15.0,
                                        alibi_slopes=alibi)
    for s in range(3):
        qs, ks = slice(cu_q[s], cu_q[s + 1]), slice(cu_k[s], cu_k[s + 1])
        ref, _ = flash_ref(q[None, qs], k[None, ks], v[None, ks], window_size=(5, 2), softcap=15.0,
                           alibi=alibi[s])
        np.testing.assert_allclose(out[qs], ref[0], atol=ATOL, rtol=RTOL)


def test_flash_attn_varlen_rejects_bad_offsets(rng):
    q = np.zeros((5, 2, 8), np.float32)
    with pytest.raises(ValueError, match="cu_seqlens_q"):
        vkattn.flash_attn_varlen_func(q, q, q, np.array([0, 4], np.int32), np.array([0, 5], np.int32), 5, 5)
    with pytest.raises(ValueError, match="max_seqlen_q"):
        vkattn.flash_attn_varlen_func(q, q, q, np.array([0, 5], np.int32), np.array([0, 5], np.int32), 4, 5)
    with pytest.raises(ValueError, match="dropout_p"):
        vkattn.flash_attn_varlen_func(q, q, q, np.array([0, 5], np.int32), np.array([0, 5], np.int32), 5, 5,
                                      dropout_p=0.1)


def test_flash_attn_with_kvcache_dense_append_in_place(rng):
    b, lmax, h, hkv, d = 3, 40, 4, 2, 32
    k_cache = rng.standard_normal((b, lmax, hkv, d)).astype(np.float32)
    v_cache = rng.standard_normal((b, lmax, hkv, d)).astype(np.float32)
    seqlens = np.array([10, 0, 25], np.int32)
    q, k_new, v_new = qkv(rng, b, 2, 2, h, hkv, d)
    before = k_cache.copy()
    out, lse = vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, k_new, v_new, cache_seqlens=seqlens,
                                              causal=True, return_softmax_lse=True)
    for i in range(b):
        n = seqlens[i]
        np.testing.assert_array_equal(k_cache[i, n:n + 2], k_new[i])  # appended in place
        np.testing.assert_array_equal(k_cache[i, :n], before[i, :n])
        ref, ref_lse = flash_ref(q[i:i + 1], k_cache[i:i + 1, :n + 2], v_cache[i:i + 1, :n + 2], causal=True)
        np.testing.assert_allclose(out[i], ref[0], atol=ATOL, rtol=RTOL)
        np.testing.assert_allclose(lse[i], ref_lse[0], atol=2e-5, rtol=1e-5)


def test_flash_attn_with_kvcache_paged_and_batch_index(rng):
    num_blocks, block, hkv, h, d = 12, 8, 1, 4, 16
    k_cache = rng.standard_normal((num_blocks, block, hkv, d)).astype(np.float32)
    v_cache = rng.standard_normal((num_blocks, block, hkv, d)).astype(np.float32)
    table = np.array([[7, 2, 9], [0, 11, 5]], np.int32)
    seqlens = np.array([19, 8], np.int32)
    q, k_new, v_new = qkv(rng, 2, 1, 1, h, hkv, d)
    alibi = np.array([0.5, 0.25, 0.125, 0.0625], np.float32)
    out = vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, k_new, v_new, cache_seqlens=seqlens,
                                         block_table=table, alibi_slopes=alibi, softcap=10.0)
    for i in range(2):
        n = seqlens[i] + 1
        keys = k_cache[table[i]].reshape(-1, hkv, d)[:n]
        vals = v_cache[table[i]].reshape(-1, hkv, d)[:n]
        np.testing.assert_array_equal(keys[-1], k_new[i, 0])
        ref, _ = flash_ref(q[i:i + 1], keys[None], vals[None], alibi=alibi, softcap=10.0)
        np.testing.assert_allclose(out[i], ref[0], atol=ATOL, rtol=RTOL)
    # Dense cache rows picked by cache_batch_idx, no append.
    dense_k = rng.standard_normal((4, 20, hkv, d)).astype(np.float32)
    dense_v = rng.standard_normal((4, 20, hkv, d)).astype(np.float32)
    idx = np.array([3, 1], np.int32)
    out = vkattn.flash_attn_with_kvcache(q, dense_k, dense_v, cache_seqlens=12, cache_batch_idx=idx)
    for i in range(2):
        ref, _ = flash_ref(q[i:i + 1], dense_k[idx[i]:idx[i] + 1, :12], dense_v[idx[i]:idx[i] + 1, :12])
        np.testing.assert_allclose(out[i], ref[0], atol=ATOL, rtol=RTOL)
    # An empty sequence: zeros and lse -inf (a paged one too).
    out, lse = vkattn.flash_attn_with_kvcache(q, dense_k, dense_v, cache_seqlens=np.array([12, 0], np.int32),
                                              cache_batch_idx=idx, causal=True, return_softmax_lse=True)
    assert np.all(out[1] == 0) and np.all(np.isneginf(lse[1]))
    ref, _ = flash_ref(q[:1], dense_k[idx[0]:idx[0] + 1, :12], dense_v[idx[0]:idx[0] + 1, :12], causal=True)
    np.testing.assert_allclose(out[0], ref[0], atol=ATOL, rtol=RTOL)
    out = vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, cache_seqlens=np.array([0, 9], np.int32),
                                         block_table=table)
    assert np.all(out[0] == 0)
    keys, vals = k_cache[table[1]].reshape(-1, hkv, d)[:9], v_cache[table[1]].reshape(-1, hkv, d)[:9]
    ref, _ = flash_ref(q[1:2], keys[None], vals[None])
    np.testing.assert_allclose(out[1], ref[0], atol=ATOL, rtol=RTOL)


def rotary_ref(x, cos, sin, positions, interleaved):
    """flash-attn's apply_rotary_emb in float64: row (b, l) of x (B, L, H, D) turns by table row
    positions[b, l]; pairs (2i, 2i+1) when interleaved, else (i, i + rotary_dim/2)."""
    x = np.asarray(x, np.float64).copy()
    half = cos.shape[1]
    c = np.asarray(cos, np.float64)[positions][:, :, None, :]  # (B, L, 1, half)
    s = np.asarray(sin, np.float64)[positions][:, :, None, :]
    if interleaved:
        u, v = x[..., 0:2 * half:2].copy(), x[..., 1:2 * half:2].copy()
        x[..., 0:2 * half:2], x[..., 1:2 * half:2] = u * c - v * s, u * s + v * c
    else:
        u, v = x[..., :half].copy(), x[..., half:2 * half].copy()
        x[..., :half], x[..., half:2 * half] = u * c - v * s, u * s + v * c
    return x


@pytest.mark.parametrize("interleaved", [True, False])
@pytest.mark.parametrize("causal", [True, False])
def test_flash_attn_with_kvcache_rotary(rng, interleaved, causal):
    b, lmax, h, hkv, d, new = 3, 24, 4, 2, 32, 3
    k_cache = rng.standard_normal((b, lmax, hkv, d)).astype(np.float32)
    v_cache = rng.standard_normal((b, lmax, hkv, d)).astype(np.float32)
    seqlens = np.array([5, 0, 17], np.int32)
    q, k_new, v_new = qkv(rng, b, new, new, h, hkv, d)
    angle = rng.uniform(0, 2 * np.pi, (lmax, 8))  # rotary_dim 16 of 32: the rest stays
    cos, sin = np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)
    out = vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, k_new, v_new, rotary_cos=cos, rotary_sin=sin,
                                         cache_seqlens=seqlens, causal=causal, rotary_interleaved=interleaved)
    key_pos = seqlens[:, None] + np.arange(new)[None, :]
    q_pos = key_pos if causal else np.repeat(seqlens[:, None], new, axis=1)
    k_ro = rotary_ref(k_new, cos, sin, key_pos, interleaved)
    q_ro = rotary_ref(q, cos, sin, q_pos, interleaved)
    for i in range(b):
        n = seqlens[i] + new
        np.testing.assert_allclose(k_cache[i, seqlens[i]:n], k_ro[i], atol=1e-6, rtol=1e-6)  # turned keys stored
        np.testing.assert_array_equal(v_cache[i, seqlens[i]:n], v_new[i])
        np.testing.assert_array_equal(k_cache[i, seqlens[i]:n, :, 16:], k_new[i, :, :, 16:])
        ref, _ = flash_ref(q_ro[i:i + 1], k_cache[i:i + 1, :n], v_cache[i:i + 1, :n], causal=causal)
        np.testing.assert_allclose(out[i], ref[0], atol=ATOL, rtol=RTOL)


def test_flash_attn_with_kvcache_leftpad(rng):
    """cache_leftpad: each sequence's keys start at its pad; the mask, window and ALiBi count from there."""
    b, lmax, h, hkv, d = 3, 30, 2, 1, 16
    k_cache = rng.standard_normal((b, lmax, hkv, d)).astype(np.float32)
    v_cache = rng.standard_normal((b, lmax, hkv, d)).astype(np.float32)
    seqlens = np.array([20, 9, 26], np.int32)
    leftpad = np.array([6, 0, 25], np.int32)
    q, k_new, v_new = qkv(rng, b, 2, 2, h, hkv, d)
    # Slopes per head, then per sequence and head.
    for alibi in (np.array([0.3, 0.1], np.float32), np.array([[0.3, 0.1], [0.05, 0.2], [0.5, 0.4]], np.float32)):
        kc, vc = k_cache.copy(), v_cache.copy()
        out, lse = vkattn.flash_attn_with_kvcache(q, kc, vc, k_new, v_new, cache_seqlens=seqlens,
                                                  cache_leftpad=leftpad, causal=True, window_size=(7, -1),
                                                  alibi_slopes=alibi, return_softmax_lse=True)
        for i in range(b):
            n = seqlens[i] + 2
            keys, vals = kc[i:i + 1, leftpad[i]:n], vc[i:i + 1, leftpad[i]:n]
            ref, ref_lse = flash_ref(q[i:i + 1], keys, vals, causal=True, window_size=(7, -1),
                                     alibi=alibi if alibi.ndim == 1 else alibi[i])
            np.testing.assert_allclose(out[i], ref[0], atol=ATOL, rtol=RTOL)
            np.testing.assert_allclose(lse[i], ref_lse[0], atol=2e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="cache_leftpad"):
        vkattn.flash_attn_with_kvcache(q, k_cache, v_cache, cache_seqlens=seqlens,
                                       cache_leftpad=np.array([0, 10, 0], np.int32))


def test_flash_attn_with_kvcache_refusals(rng):
    q, k, v = qkv(rng, 1, 1, 4, 2, 2, 8)
    with pytest.raises(ValueError, match="overflows"):
        vkattn.flash_attn_with_kvcache(q, k.copy(), v.copy(), k[:, :1], v[:, :1], cache_seqlens=4)
    with pytest.raises(ValueError, match="rotary_cos"):  # rotary needs new k and v
        vkattn.flash_attn_with_kvcache(q, k, v, rotary_cos=np.ones((4, 4), np.float32))
    table = np.ones((4, 2), np.float32)
    with pytest.raises(ValueError, match="rotary_cos.*position"):  # the table is too short for position 4
        vkattn.flash_attn_with_kvcache(q, np.zeros((1, 8, 2, 8), np.float32), np.zeros((1, 8, 2, 8), np.float32),
                                       k[:, :1], v[:, :1], rotary_cos=table, rotary_sin=table, cache_seqlens=4)
    with pytest.raises(ValueError, match="head dim"):  # rotary_dim 10 > 8
        vkattn.flash_attn_with_kvcache(q, k.copy(), v.copy(), k[:, :1], v[:, :1], rotary_cos=np.ones((8, 5)),
                                       rotary_sin=np.ones((8, 5)), cache_seqlens=2)
    with pytest.raises(ValueError, match="rotary_sin"):
        vkattn.flash_attn_with_kvcache(q, k.copy(), v.copy(), k[:, :1], v[:, :1], rotary_cos=table,
                                       cache_seqlens=2)
    ro = k.copy()
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        vkattn.flash_attn_with_kvcache(q, ro, v.copy(), k[:, :1], v[:, :1], cache_seqlens=2)
    with pytest.raises(ValueError, match="sinks"):
        vkattn.flash_attn_func(q, k, v, sinks=np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="alibi_slopes"):
        vkattn.flash_attn_func(q, k, v, alibi_slopes=np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match="softcap"):
        vkattn.flash_attn_func(q, k, v, softcap=-1.0)


def test_sdpa_takes_softcap_alibi_and_sinks(rng):
    # PyTorch layout (B, H, L, E), top-left causal; the same logit shaping as flash_attn_func.
    q = rng.standard_normal((2, 4, 6, 16)).astype(np.float32) * 2
    k = rng.standard_normal((2, 4, 6, 16)).astype(np.float32)
    v = rng.standard_normal((2, 4, 6, 16)).astype(np.float32)
    alibi = np.array([0.3, 0.2, 0.1, 0.05], np.float32)
    sinks = np.array([1.0, -0.5, 0.0, 2.0], np.float32)
    out = vkattn.scaled_dot_product_attention(q, k, v, is_causal=True, softcap=5.0, alibi_slopes=alibi, sinks=sinks)
    t = lambda x: np.swapaxes(x, 1, 2)  # noqa: E731 - (B, H, L, E) <-> (B, L, H, E); Lq == Lk, so causal agrees
    ref, _ = flash_ref(t(q), t(k), t(v), causal=True, softcap=5.0, alibi=alibi, sinks=sinks)
    np.testing.assert_allclose(out, t(ref), atol=ATOL, rtol=RTOL)
