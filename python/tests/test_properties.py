"""Property tests: random shapes (ones, primes), dtypes, memory layouts (negative, zero and Fortran
strides, read-only, views larger than memory) through every array entry point. Each call gives
the float64 NumPy answer within the dtype's tolerance or raises TypeError / ValueError /
MemoryError naming the argument; nothing may crash. Derandomized, so CI sees the same examples."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.lib.stride_tricks import as_strided

import vkattn

# Bounded so the file runs in well under a minute on lavapipe; derandomized for reproducible CI.
PROPERTY = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

FLOATS = [np.float16, np.float32, np.float64]
REJECTED = [np.int8, np.int32, np.int64, np.uint16, np.bool_, np.complex64, np.complex128]
SIDES = st.sampled_from([1, 2, 3, 5, 7, 13, 17, 31])
# (atol, rtol) of the result against float64 math on the same input values.
TOLERANCE = {np.float16: (2e-3, 5e-3), np.float32: (3e-5, 1e-4), np.float64: (3e-5, 1e-4)}
LAYOUTS = ["c", "fortran", "negative", "broadcast", "readonly", "strided"]


def laid_out(values, layout):
    """The same logical values in another memory layout."""
    if layout == "fortran":
        return np.asfortranarray(values)
    if layout == "negative":  # a reversed copy seen backwards: negative strides
        return np.flip(np.flip(values, -1).copy(), -1)
    if layout == "broadcast":  # the first slice repeated: zero stride on axis 0, same shape
        return np.broadcast_to(values[:1], values.shape)
    if layout == "readonly":
        values = values.copy()
        values.setflags(write=False)
        return values
    if layout == "strided":  # every other element of a larger buffer
        wide = np.zeros(values.shape[:-1] + (2 * values.shape[-1],), values.dtype)
        wide[..., ::2] = values
        return wide[..., ::2]
    return values


def float_arrays(min_dims=1, max_dims=4, dtypes=FLOATS, last=None):
    shapes = hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=31).map(
        lambda s: s if last is None else s[:-1] + (last,))
    return st.tuples(st.sampled_from(dtypes), shapes, st.sampled_from(LAYOUTS), st.integers(0, 2**32 - 1)).map(
        lambda t: laid_out(np.random.default_rng(t[3]).uniform(-4, 4, t[1]).astype(t[0]), t[2]))


def check(result, expected, dtype, extra_atol=0.0):
    atol, rtol = TOLERANCE[dtype]
    assert result.dtype == (np.float16 if dtype == np.float16 else np.float32)
    # By hand rather than assert_allclose, which cannot print a per-row atol.
    error = np.abs(result.astype(np.float64) - expected)
    allowed = atol + extra_atol + rtol * np.abs(expected)
    worst = np.unravel_index(np.argmax(error - allowed), error.shape) if error.size else ()
    assert np.all(error <= allowed), f"error {error[worst]:.3g} > {allowed[worst]:.3g} at {worst}"


def softmax_ref(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@PROPERTY
@given(x=float_arrays(), axis_pick=st.integers(0, 3))
def test_softmax_property(x, axis_pick):
    axis = axis_pick % x.ndim - (axis_pick % 2) * x.ndim  # both signs
    check(vkattn.softmax(x, axis=axis), softmax_ref(x.astype(np.float64), axis), x.dtype.type)


@PROPERTY
@given(x=float_arrays(), with_affine=st.booleans())
def test_layer_norm_property(x, with_affine):
    xd = x.astype(np.float64)
    w = np.linspace(0.5, 1.5, x.shape[-1]).astype(x.dtype) if with_affine else None
    b = np.linspace(-1, 1, x.shape[-1]).astype(x.dtype) if with_affine else None
    mean = xd.mean(-1, keepdims=True)
    spread = np.sqrt(((xd - mean) ** 2).mean(-1, keepdims=True) + 1e-5)
    expected = (xd - mean) / spread
    # x - mean cancels in fp32: a row of nearly equal values keeps ~ eps * max|x| / spread of its digits.
    cancellation = 64 * np.finfo(np.float32).eps * np.abs(xd).max(-1, keepdims=True) / spread
    if with_affine:
        expected = expected * w.astype(np.float64) + b.astype(np.float64)
        cancellation = cancellation * np.abs(w.astype(np.float64))
    check(vkattn.layer_norm(x, w, b), expected, x.dtype.type, extra_atol=cancellation)


@PROPERTY
@given(x=float_arrays())
def test_rms_norm_property(x):
    xd = x.astype(np.float64)
    check(vkattn.rms_norm(x), xd / np.sqrt((xd * xd).mean(-1, keepdims=True) + 1e-6), x.dtype.type)


@PROPERTY
@given(x=float_arrays(min_dims=4, max_dims=4).filter(lambda a: a.shape[-1] % 2 == 0 or a.shape[-1] == 1),
       offset=st.integers(-1000, 1000), interleaved=st.booleans())
def test_rope_property(x, offset, interleaved):
    if x.shape[-1] == 1:  # an odd head dim has no pairs to rotate
        with pytest.raises(ValueError):
            vkattn.rope(x, offset)
        return
    xd = x.astype(np.float64)
    d = x.shape[-1]
    angles = np.arange(offset, offset + x.shape[2], dtype=np.float64)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
    cos, sin = np.cos(angles), np.sin(angles)
    a, b = (xd[..., 0::2], xd[..., 1::2]) if interleaved else (xd[..., : d // 2], xd[..., d // 2:])
    expected = np.empty_like(xd)
    lo, hi = (np.s_[..., 0::2], np.s_[..., 1::2]) if interleaved else (np.s_[..., : d // 2], np.s_[..., d // 2:])
    expected[lo], expected[hi] = a * cos - b * sin, b * cos + a * sin
    check(vkattn.rope(x, offset, interleaved=interleaved), expected, x.dtype.type)


def attention_ref(q, k, v, causal):
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if causal:  # top-left aligned, as PyTorch's is_causal: query i sees keys j <= i
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = softmax_ref(s, -1)
    return p @ v, p


# Head dims the kernels take (16..256 in steps of 8); few, so few pipelines are built.
HEAD_DIMS = st.sampled_from([16, 32, 64])


@st.composite
def qkv(draw):
    dtype = draw(st.sampled_from(FLOATS))
    lead = draw(st.lists(SIDES.filter(lambda s: s < 4), min_size=0, max_size=2))
    heads, lq, lk, dk, dv = draw(SIDES.filter(lambda s: s < 6)), draw(SIDES), draw(SIDES), draw(HEAD_DIMS), draw(HEAD_DIMS)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    make = lambda *shape: laid_out(rng.uniform(-2, 2, tuple(lead) + shape).astype(dtype), draw(st.sampled_from(LAYOUTS)))
    return make(heads, lq, dk), make(heads, lk, dk), make(heads, lk, dv)


@pytest.mark.ci
@PROPERTY
@given(inputs=qkv(), causal=st.booleans())
def test_scaled_dot_product_attention_property(inputs, causal):
    q, k, v = inputs
    check(vkattn.scaled_dot_product_attention(q, k, v, is_causal=causal), attention_ref(q, k, v, causal)[0],
          q.dtype.type)


@PROPERTY
@given(inputs=qkv(), data=st.data())
def test_attention_weights_property(inputs, data):
    q, k, _ = inputs
    heads = data.draw(st.lists(st.integers(0, q.shape[-3] - 1), min_size=1, max_size=3, unique=True))
    weights = vkattn.attention_weights(q, k, heads=heads)
    expected = attention_ref(q, k, k, False)[1].reshape((-1,) + q.shape[-3:-1] + (k.shape[-2],))[:, heads]
    np.testing.assert_allclose(weights, expected, atol=2e-3 if q.dtype == np.float16 else 2e-5, rtol=1e-3)


ENTRY_POINTS = {
    "softmax": lambda a: vkattn.softmax(a),
    "layer_norm": lambda a: vkattn.layer_norm(a),
    "rms_norm": lambda a: vkattn.rms_norm(a),
    "rope": lambda a: vkattn.rope(a, 0),
    "scaled_dot_product_attention": lambda a: vkattn.scaled_dot_product_attention(a, a, a),
    "attention_weights": lambda a: vkattn.attention_weights(a, a),
}


@PROPERTY
@given(name=st.sampled_from(sorted(ENTRY_POINTS)), dtype=st.sampled_from(REJECTED),
       shape=hnp.array_shapes(min_dims=4, max_dims=4, max_side=3))
def test_other_dtypes_are_type_errors(name, dtype, shape):
    with pytest.raises(TypeError, match="dtype"):
        ENTRY_POINTS[name](np.ones(shape, dtype))


@PROPERTY
@given(name=st.sampled_from(sorted(ENTRY_POINTS)), shape=st.lists(st.sampled_from([0, 1, 3]), min_size=4, max_size=4)
       .filter(lambda s: 0 in s))
def test_empty_dimensions_are_value_errors(name, shape):
    with pytest.raises(ValueError, match="at least 1"):
        ENTRY_POINTS[name](np.ones(shape, np.float32))


@PROPERTY
@given(name=st.sampled_from(sorted(ENTRY_POINTS)), exponent=st.integers(28, 59), dtype=st.sampled_from(FLOATS))
def test_views_larger_than_memory_raise(name, exponent, dtype):
    """A broadcast view shows 2^exponent elements backed by one: refused before anything is copied.
    (NumPy itself refuses views of 2^63 bytes or more.)"""
    side = 2 ** (exponent // 4)
    shape = (2 ** (exponent - 3 * (exponent // 4)), side, side, side)
    huge = as_strided(np.zeros(1, dtype), shape=shape, strides=(0, 0, 0, 0))
    with pytest.raises((MemoryError, ValueError), match="'(x|query)'"):
        ENTRY_POINTS[name](huge)


@PROPERTY
@given(value=st.one_of(st.integers(min_value=2**63), st.integers(max_value=-(2**63) - 1)))
def test_integers_beyond_64_bits_are_overflow_errors(value):
    x = np.zeros((1, 1, 3, 16), np.float32)
    for call, name in [(lambda: vkattn.use_device(value), "index_or_name"), (lambda: vkattn.rope(x, value), "positions"),
                       (lambda: vkattn.rope(x, 0, rotary_dim=value), "rotary_dim"),
                       (lambda: vkattn.softmax(x, axis=value), "axis"),
                       (lambda: vkattn.attention_weights(x, x, heads=[value]), "heads")]:
        with pytest.raises(OverflowError, match=name):
            call()


def test_integers_out_of_range_are_value_errors():
    x = np.zeros((1, 2, 3, 16), np.float32)
    with pytest.raises(ValueError, match="index_or_name"):
        vkattn.use_device(-5)
    with pytest.raises(ValueError, match="heads"):
        vkattn.attention_weights(x, x, heads=[2**40])
    with pytest.raises(ValueError, match="positions"):
        vkattn.rope(x, np.array([2**40, 0, 1]))
    with pytest.raises(ValueError, match="positions"):
        vkattn.rope(x, np.array([0, 1, 2], np.uint64) + np.uint64(2**63))
    with pytest.raises(ValueError, match="rotary_dim"):
        vkattn.rope(x, 0, rotary_dim=-2)
    with pytest.raises(TypeError, match="eps"):
        vkattn.layer_norm(x, eps="small")
    with pytest.raises(ValueError, match="eps"):
        vkattn.rms_norm(x, eps=float("nan"))
    y = np.arange(16, dtype=np.float32).reshape(1, 1, 1, 16)
    np.testing.assert_array_equal(vkattn.rms_norm(y, eps=np.float32(0.5)), vkattn.rms_norm(y, eps=0.5))  # NumPy scalars
