"""vkattn.MultiHeadAttention against torch.nn.MultiheadAttention with the same weights, and against
the documents' GroupedQueryAttention (repeat_interleave of the key/value heads) for GQA and MQA."""
import numpy as np
import pytest

import vkattn


def layer_from_torch(mha):
    d = mha.embed_dim
    w = mha.in_proj_weight.detach().numpy()
    b = mha.in_proj_bias.detach().numpy()
    return vkattn.MultiHeadAttention(
        w[:d], w[d:2 * d], w[2 * d:], mha.out_proj.weight.detach().numpy(), num_heads=mha.num_heads,
        q_bias=b[:d], k_bias=b[d:2 * d], v_bias=b[2 * d:], o_bias=mha.out_proj.bias.detach().numpy())


@pytest.mark.parametrize("cross", [False, True])
def test_matches_nn_multihead_attention(torch, cross):
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(64, 4, batch_first=True).eval()
    x = torch.randn(2, 7, 64)
    src = torch.randn(2, 11, 64) if cross else x
    with torch.no_grad():
        expected, expected_w = mha(x, src, src, need_weights=True, average_attn_weights=False)
    got, got_w = layer_from_torch(mha)(x.numpy(), src.numpy() if cross else None, need_weights=True)
    np.testing.assert_allclose(got, expected.numpy(), atol=2e-5, rtol=1e-4)
    np.testing.assert_allclose(got_w, expected_w.numpy(), atol=1e-5, rtol=1e-4)


def test_causal_matches_nn_multihead_attention_with_mask(torch):
    torch.manual_seed(1)
    mha = torch.nn.MultiheadAttention(48, 3, batch_first=True).eval()
    x = torch.randn(1, 9, 48)
    mask = torch.triu(torch.ones(9, 9, dtype=torch.bool), diagonal=1)  # True = masked out
    with torch.no_grad():
        expected, _ = mha(x, x, x, attn_mask=mask)
    got = layer_from_torch(mha)(x.numpy(), causal=True)
    np.testing.assert_allclose(got, expected.numpy(), atol=2e-5, rtol=1e-4)


@pytest.mark.parametrize("kv_heads", [4, 2, 1])
def test_grouped_query_attention_matches_repeat_interleave(torch, kv_heads):
    torch.manual_seed(2)
    d, heads, head_dim = 64, 8, 16
    q = torch.nn.Linear(d, heads * head_dim)
    k = torch.nn.Linear(d, kv_heads * head_dim)
    v = torch.nn.Linear(d, kv_heads * head_dim)
    o = torch.nn.Linear(heads * head_dim, d)
    x = torch.randn(2, 10, d)
    with torch.no_grad():
        qh = q(x).view(2, 10, heads, head_dim).transpose(1, 2)
        kh = k(x).view(2, 10, kv_heads, head_dim).transpose(1, 2).repeat_interleave(heads // kv_heads, dim=1)
        vh = v(x).view(2, 10, kv_heads, head_dim).transpose(1, 2).repeat_interleave(heads // kv_heads, dim=1)
        weights = torch.softmax(qh @ kh.transpose(2, 3) / head_dim ** 0.5, dim=-1)
        expected = o((weights @ vh).transpose(1, 2).reshape(2, 10, heads * head_dim))
    layer = vkattn.MultiHeadAttention(
        q.weight.detach().numpy(), k.weight.detach().numpy(), v.weight.detach().numpy(), o.weight.detach().numpy(),
        num_heads=heads, num_kv_heads=kv_heads, q_bias=q.bias.detach().numpy(), k_bias=k.bias.detach().numpy(),
        v_bias=v.bias.detach().numpy(), o_bias=o.bias.detach().numpy())
    assert layer.num_kv_heads == kv_heads and layer.head_dim == head_dim
    np.testing.assert_allclose(layer(x.numpy()), expected.numpy(), atol=2e-5, rtol=1e-4)


def test_bad_weights_name_the_argument(rng):
    w = rng.standard_normal((64, 64)).astype(np.float32)
    with pytest.raises(ValueError, match="'num_kv_heads'"):
        vkattn.MultiHeadAttention(w, w[:48], w[:48], w, num_heads=4, num_kv_heads=3)
    with pytest.raises(ValueError, match="'k_weight'"):
        vkattn.MultiHeadAttention(w, w[:40], w[:32], w, num_heads=4, num_kv_heads=2)
    layer = vkattn.MultiHeadAttention(w, w, w, w, num_heads=4)
    with pytest.raises(ValueError, match="'x'"):
        layer(rng.standard_normal((3, 63)).astype(np.float32))


def test_layer_survives_a_device_change(torch):
    # The weights are uploaded once per device; use_device() drops them with the old device and the
    # next call uploads them again.
    torch.manual_seed(3)
    mha = torch.nn.MultiheadAttention(32, 2, batch_first=True).eval()
    x = torch.randn(1, 5, 32)
    with torch.no_grad():
        expected, _ = mha(x, x, x)
    layer = layer_from_torch(mha)
    first = layer(x.numpy())
    vkattn.use_device(0)
    again = layer(x.numpy())
    np.testing.assert_allclose(first, expected.numpy(), atol=2e-5, rtol=1e-4)
    np.testing.assert_array_equal(again, first)
    del layer  # its weights leave the session with it
