"""softmax, log_softmax, argmax, layer_norm, rms_norm and rope against float64 NumPy references, NumPy and PyTorch."""
import gc

import numpy as np
import pytest

import vkattn


def softmax_ref(x, axis=-1):
    x = x.astype(np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isneginf(m), 0.0, m)
    e = np.exp(x - m)
    s = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)


def rope_ref(x, positions, theta=10000.0, interleaved=False, rotary_dim=None):
    x = x.astype(np.float64)
    d = x.shape[-1]
    r = rotary_dim or d
    freqs = theta ** (-np.arange(0, r, 2, dtype=np.float64) / r)
    angles = np.asarray(positions, dtype=np.float64)[..., None] * freqs  # (L, r/2) or (B, L, r/2)
    if angles.ndim == 3:
        angles = angles[:, None]  # broadcast over heads
    cos, sin = np.cos(angles), np.sin(angles)
    out = x.copy()
    if interleaved:
        a, b = x[..., 0:r:2], x[..., 1:r:2]
        out[..., 0:r:2] = a * cos - b * sin
        out[..., 1:r:2] = b * cos + a * sin
    else:
        a, b = x[..., : r // 2], x[..., r // 2 : r]
        out[..., : r // 2] = a * cos - b * sin
        out[..., r // 2 : r] = b * cos + a * sin
    return out


@pytest.mark.parametrize("shape", [(1,), (3, 7), (2, 5, 33), (2, 3, 4, 1000), (4097,)])
def test_softmax_matches_numpy(rng, shape):
    x = rng.standard_normal(shape).astype(np.float32) * 4
    np.testing.assert_allclose(vkattn.softmax(x), softmax_ref(x), atol=2e-6, rtol=1e-5)


def test_results_are_writable_arrays_that_outlive_their_inputs(rng):
    # A result owns the downloaded bytes (no copy): writable, aligned, and valid after every other
    # result and input is gone.
    x = rng.standard_normal((3, 50)).astype(np.float32)
    y = vkattn.softmax(x)
    z = vkattn.rms_norm(x, np.ones(50, np.float32))
    expected = softmax_ref(x)
    del x, z
    gc.collect()
    assert y.flags.writeable and y.flags.aligned and y.flags.c_contiguous
    np.testing.assert_allclose(y, expected, atol=2e-6, rtol=1e-5)
    y[0, 0] = 7.0
    assert y[0, 0] == 7.0


def test_argmax_is_numpys_along_an_axis(rng):
    x = rng.standard_normal((3, 5, 1001)).astype(np.float32)
    x[1, 2, [500, 10, 700]] = 9.0  # equal values: the first index wins, as in NumPy
    for axis in (-1, 0, 1):
        got = vkattn.argmax(x, axis=axis)
        assert got.dtype == np.intp
        np.testing.assert_array_equal(got, np.argmax(x, axis=axis))
    h = x.astype(np.float16)
    np.testing.assert_array_equal(vkattn.argmax(vkattn.asarray(h)), np.argmax(h, axis=-1))
    one = vkattn.argmax(np.array([1.0, 3.0, 3.0, 2.0], np.float32))
    assert one == 1 and isinstance(one, np.intp)
    with pytest.raises(ValueError, match="'x'"):
        vkattn.argmax(np.array([1.0, np.nan], np.float32))


def test_softmax_other_axis_and_float16(rng):
    x = rng.standard_normal((5, 6, 7)).astype(np.float32)
    np.testing.assert_allclose(vkattn.softmax(x, axis=1), softmax_ref(x, axis=1), atol=2e-6, rtol=1e-5)
    h = x.astype(np.float16)
    y = vkattn.softmax(h, axis=0)
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.astype(np.float64), softmax_ref(h, axis=0), atol=1e-3)


def test_softmax_masked_rows_are_zero():
    x = np.array([[-np.inf] * 4, [0.0, -np.inf, 1.0, 2.0]], dtype=np.float32)
    y = vkattn.softmax(x)
    assert np.all(y[0] == 0)
    np.testing.assert_allclose(y[1], softmax_ref(x)[1], atol=2e-6)


def test_softmax_matches_torch(rng, torch):
    x = rng.standard_normal((8, 129)).astype(np.float32)
    expected = torch.nn.functional.softmax(torch.from_numpy(x).double(), dim=-1).numpy()
    np.testing.assert_allclose(vkattn.softmax(x), expected, atol=2e-6, rtol=1e-5)


@pytest.mark.parametrize("shape", [(1,), (3, 7), (2, 5, 33), (2, 32000)])
def test_log_softmax_matches_torch(rng, torch, shape):
    x = rng.standard_normal(shape).astype(np.float32) * 6
    expected = torch.log_softmax(torch.from_numpy(x).double(), dim=-1).numpy()
    np.testing.assert_allclose(vkattn.log_softmax(x), expected, atol=1e-5, rtol=1e-6)


def test_log_softmax_other_axis_float16_and_bad_input(rng):
    x = rng.standard_normal((4, 6, 9)).astype(np.float32)
    x[0, 0, 0] = -np.inf
    ref = x.astype(np.float64) - np.log(np.sum(np.exp(x.astype(np.float64)), axis=1, keepdims=True))
    got = vkattn.log_softmax(x, axis=1)
    assert got[0, 0, 0] == -np.inf
    finite = np.isfinite(ref)
    np.testing.assert_allclose(got[finite], ref[finite], atol=1e-5, rtol=1e-6)
    h = x[1:].astype(np.float16)
    y = vkattn.log_softmax(h)
    assert y.dtype == np.float16
    hr = h.astype(np.float64)
    np.testing.assert_allclose(y, hr - np.log(np.sum(np.exp(hr), axis=-1, keepdims=True)), atol=2e-3, rtol=1e-3)
    for bad in (np.nan, np.inf):
        with pytest.raises(ValueError, match="'x'"):
            vkattn.log_softmax(np.array([1.0, bad], np.float32))
    with pytest.raises(ValueError, match="'axis'"):
        vkattn.log_softmax(x, axis=3)


@pytest.mark.parametrize("cols", [1, 7, 64, 1000])
def test_layer_norm_matches_torch(rng, torch, cols):
    x = rng.standard_normal((6, cols)).astype(np.float32) * 3 + 1
    w = rng.uniform(0.5, 1.5, cols).astype(np.float32)
    b = rng.standard_normal(cols).astype(np.float32)
    expected = torch.nn.functional.layer_norm(
        torch.from_numpy(x).double(), (cols,), torch.from_numpy(w).double(), torch.from_numpy(b).double(), eps=1e-5
    ).numpy()
    np.testing.assert_allclose(vkattn.layer_norm(x, w, b), expected, atol=1e-5, rtol=1e-5)


def test_rms_norm_matches_numpy(rng):
    x = rng.standard_normal((4, 3, 96)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, 96).astype(np.float32)
    xd = x.astype(np.float64)
    expected = xd / np.sqrt(np.mean(xd * xd, axis=-1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(vkattn.rms_norm(x, w), expected, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(vkattn.rms_norm(x.astype(np.float16), w).astype(np.float64), expected, atol=4e-3, rtol=4e-3)
    r = rng.standard_normal(x.shape).astype(np.float32)
    np.testing.assert_allclose(vkattn.rms_norm(x, w, residual=r), expected + r, atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="'residual' has shape"):
        vkattn.rms_norm(x, w, residual=r[:, :, :95])


@pytest.mark.parametrize("interleaved", [False, True])
def test_rope_matches_reference(rng, interleaved):
    x = rng.uniform(-1, 1, (2, 3, 11, 64)).astype(np.float32)
    pos = rng.integers(0, 100000, (2, 11))
    np.testing.assert_allclose(vkattn.rope(x, pos, interleaved=interleaved), rope_ref(x, pos, interleaved=interleaved), atol=2e-6)
    np.testing.assert_allclose(vkattn.rope(x, 7, rotary_dim=32), rope_ref(x, np.arange(7, 18), rotary_dim=32), atol=2e-6)


def test_rope_matches_hf_rotate_half(rng, torch):
    """The half-split layout is HF/NeoX's rotate_half formulation."""
    x = rng.uniform(-1, 1, (1, 4, 9, 32)).astype(np.float32)
    t = torch.from_numpy(x).double()
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, 32, 2, dtype=torch.float64) / 32))
    emb = torch.cat([torch.outer(torch.arange(9, dtype=torch.float64), inv_freq)] * 2, dim=-1)
    rotate_half = torch.cat([-t[..., 16:], t[..., :16]], dim=-1)
    expected = (t * emb.cos() + rotate_half * emb.sin()).numpy()
    np.testing.assert_allclose(vkattn.rope(x, np.arange(9)), expected, atol=2e-6)


def test_bad_input_names_the_argument(rng):
    x = rng.standard_normal((3, 5)).astype(np.float32)
    with pytest.raises(TypeError, match="'x'"):
        vkattn.softmax(np.arange(4))
    with pytest.raises(ValueError, match="axis"):
        vkattn.softmax(x, axis=2)
    with pytest.raises(ValueError, match="weight"):
        vkattn.layer_norm(x, weight=np.ones(4, np.float32))
    with pytest.raises(ValueError, match="NaN"):
        vkattn.softmax(np.array([[1.0, np.nan]], dtype=np.float32))
    with pytest.raises(ValueError, match="positions"):
        vkattn.rope(np.zeros((1, 1, 3, 8), np.float32), np.arange(4))
    with pytest.raises(ValueError, match="device"):
        vkattn.use_device("no-such-gpu")


def test_devices_lists_limits():
    devices = vkattn.devices()
    assert devices and {"name", "type", "subgroup_size", "max_storage_buffer_bytes"} <= set(devices[0])
    assert vkattn.use_device(0) == devices[0]["name"]
