"""Attention from Python against float64 NumPy math and PyTorch (nn.MultiheadAttention with the
same weights); torch 1.13 predates F.scaled_dot_product_attention, so its math is written out."""
import numpy as np
import pytest

import vkattn


def sdpa_ref(q, k, v, mask=None, causal=False, scale=None):
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    if k.shape[-3] != q.shape[-3]:  # grouped-query: repeat kv heads
        r = q.shape[-3] // k.shape[-3]
        k, v = np.repeat(k, r, axis=-3), np.repeat(v, r, axis=-3)
    s = q @ np.swapaxes(k, -1, -2) * (scale if scale is not None else 1 / np.sqrt(q.shape[-1]))
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    m = np.max(s, -1, keepdims=True)
    m = np.where(np.isneginf(m), 0, m)
    e = np.exp(s - m)
    sums = e.sum(-1, keepdims=True)
    p = np.divide(e, sums, out=np.zeros_like(e), where=sums > 0)
    return p @ v, p


@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_matches_reference(rng, causal):
    q = rng.standard_normal((2, 4, 33, 64)).astype(np.float32)
    k = rng.standard_normal((2, 4, 33, 64)).astype(np.float32)
    v = rng.standard_normal((2, 4, 33, 128)).astype(np.float32)  # d_v != d_k, as in seed 001
    out = vkattn.scaled_dot_product_attention(q, k, v, is_causal=causal)
    np.testing.assert_allclose(out, sdpa_ref(q, k, v, causal=causal)[0], atol=2e-5, rtol=1e-4)


def test_sdpa_gqa_masks_scale_and_lse(rng):
    q = rng.standard_normal((1, 8, 7, 32)).astype(np.float32)
    k = rng.standard_normal((1, 2, 13, 32)).astype(np.float32)
    v = rng.standard_normal((1, 2, 13, 32)).astype(np.float32)
    keep = rng.random((7, 13)) > 0.3
    keep[2] = False  # a fully masked row gives zeros
    out, lse = vkattn.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=1.0, enable_gqa=True, return_lse=True)
    ref, _ = sdpa_ref(q, k, v, mask=keep, scale=1.0)
    np.testing.assert_allclose(out, ref, atol=2e-5, rtol=1e-4)
    assert np.all(out[:, :, 2] == 0) and np.all(np.isneginf(lse[:, :, 2]))
    bias = rng.standard_normal((8, 7, 13)).astype(np.float32)
    np.testing.assert_allclose(
        vkattn.scaled_dot_product_attention(q, k, v, attn_mask=bias, enable_gqa=True), sdpa_ref(q, k, v, mask=bias)[0],
        atol=2e-5, rtol=1e-4)
    with pytest.raises(ValueError, match="enable_gqa"):
        vkattn.scaled_dot_product_attention(q, k, v)


def test_sdpa_float16(rng):
    q, k, v = (rng.standard_normal((3, 16, 64)).astype(np.float16) for _ in range(3))
    out = vkattn.scaled_dot_product_attention(q, k, v)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float64), sdpa_ref(q, k, v)[0], atol=2e-3, rtol=5e-3)


def test_attention_weights_for_chosen_heads(rng):
    q = rng.standard_normal((2, 4, 9, 16)).astype(np.float32)
    k = rng.standard_normal((2, 4, 11, 16)).astype(np.float32)
    w = vkattn.attention_weights(q, k, heads=[1, 3])
    _, p = sdpa_ref(q, k, k)
    assert w.shape == (2, 2, 9, 11)
    np.testing.assert_allclose(w, p[:, [1, 3]], atol=1e-5, rtol=1e-4)


def test_matches_torch_multihead_attention(rng, torch):
    """nn.MultiheadAttention's core with the same weights: projections in NumPy, attention on vkattn."""
    E, H, L, S = 64, 4, 6, 9
    mha = torch.nn.MultiheadAttention(E, H, batch_first=True).double().eval()
    x = rng.standard_normal((2, L, E))
    mem = rng.standard_normal((2, S, E))  # cross-attention: queries from x, keys/values from mem
    with torch.no_grad():
        expected, _ = mha(torch.from_numpy(x), torch.from_numpy(mem), torch.from_numpy(mem))
    w = mha.in_proj_weight.detach().numpy()
    b = mha.in_proj_bias.detach().numpy()
    split = lambda t: t.reshape(2, -1, H, E // H).transpose(0, 2, 1, 3).astype(np.float32)
    q = split(x @ w[:E].T + b[:E])
    k = split(mem @ w[E:2 * E].T + b[E:2 * E])
    v = split(mem @ w[2 * E:].T + b[2 * E:])
    heads = vkattn.scaled_dot_product_attention(q, k, v).astype(np.float64)
    merged = heads.transpose(0, 2, 1, 3).reshape(2, L, E)
    out = merged @ mha.out_proj.weight.detach().numpy().T + mha.out_proj.bias.detach().numpy()
    np.testing.assert_allclose(out, expected.numpy(), atol=1e-4, rtol=1e-4)


def test_additive_attention_matches_torch(rng, torch):
    """Bahdanau: softmax_j(v . tanh(W_q q_i + W_k k_j)) value_j, written in torch."""
    q = rng.standard_normal((2, 5, 6)).astype(np.float32)
    k = rng.standard_normal((2, 7, 10)).astype(np.float32)
    val = rng.standard_normal((2, 7, 3)).astype(np.float32)
    wq = rng.standard_normal((8, 6)).astype(np.float32) * 0.5
    wk = rng.standard_normal((8, 10)).astype(np.float32) * 0.5
    vv = rng.standard_normal(8).astype(np.float32)
    keep = np.ones((2, 5, 7), bool)
    keep[1, :, 4:] = False
    t = lambda a: torch.from_numpy(a).double()
    scores = torch.tanh((t(q) @ t(wq).T)[:, :, None, :] + (t(k) @ t(wk).T)[:, None, :, :]) @ t(vv)
    scores = scores.masked_fill(~torch.from_numpy(keep), float("-inf"))
    expected = (torch.softmax(scores, -1) @ t(val)).numpy()
    out = vkattn.additive_attention(q, k, val, wq, wk, vv, attn_mask=keep)
    np.testing.assert_allclose(out, expected, atol=2e-5, rtol=1e-4)
