"""vkattn.write_gguf / read_gguf: metadata of every GGUF value type (explicit and as gguf-py infers
it), tensors in F32, F16, BF16, Q8_0 and Q4_0 against a NumPy reading of ggml's reference
quantizers, the file header read with struct, and bad input refused naming the argument.
(tests/llama_crosscheck.py checks the same functions against gguf-py itself.)"""
import struct

import numpy as np
import pytest

import vkattn


def f16_round(x):
    return x.astype(np.float16).astype(np.float32)


def q8_0_ref(x):
    """ggml's quantize_row_q8_0_ref then dequantize: d = amax / 127 (stored as f16), q = roundf(x / d)."""
    b = x.reshape(-1, 32)
    d = np.abs(b).max(axis=1, keepdims=True) / np.float32(127)
    inv = np.divide(np.float32(1), d, out=np.zeros_like(d), where=d != 0)
    prod = b * inv
    q = np.sign(prod) * np.floor(np.abs(prod) + np.float32(0.5))  # roundf: halves away from zero
    return (q * f16_round(d)).reshape(x.shape)


def q4_0_ref(x):
    """ggml's quantize_row_q4_0_ref then dequantize: d = (value of largest magnitude) / -8 (f16),
    q = min(15, trunc(x / d + 8.5)), value = (q - 8) * d."""
    b = x.reshape(-1, 32)
    pick = b[np.arange(len(b)), np.abs(b).argmax(axis=1)][:, None]
    d = pick / np.float32(-8)
    inv = np.divide(np.float32(1), d, out=np.zeros_like(d), where=d != 0)
    q = np.minimum(np.float32(15), np.trunc(b * inv + np.float32(8.5)))
    return ((q - 8) * f16_round(d)).reshape(x.shape)


def bf16_ref(x):
    """Round to nearest even on the upper 16 bits (no NaN here)."""
    bits = x.view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


METADATA = {
    "general.architecture": "llama",
    "t.u8": (200, "UINT8"), "t.i8": (-100, "INT8"), "t.u16": (60000, "UINT16"), "t.i16": (-30000, "INT16"),
    "t.u32": (4000000000, "UINT32"), "t.i32": (-2000000000, "INT32"), "t.u64": (2**64 - 1, "UINT64"),
    "t.i64": (-2**63, "INT64"), "t.f32": (0.1, "FLOAT32"), "t.f64": (0.1, "FLOAT64"), "t.bool": False,
    "t.inferred_int": 7, "t.inferred_float": 2.5, "t.string": "h\u00e9llo \u0120world",
    "t.tokens": ["a", "\u0120b", "<|endoftext|>"], "t.ids": ([1, 2, 3], "UINT32"), "t.nested": [[1, 2], [3]],
    "t.empty": ([], "FLOAT32"),
}
TYPES = {"general.architecture": "STRING", "t.u8": "UINT8", "t.i8": "INT8", "t.u16": "UINT16", "t.i16": "INT16",
         "t.u32": "UINT32", "t.i32": "INT32", "t.u64": "UINT64", "t.i64": "INT64", "t.f32": "FLOAT32",
         "t.f64": "FLOAT64", "t.bool": "BOOL", "t.inferred_int": "INT32", "t.inferred_float": "FLOAT32",
         "t.string": "STRING", "t.tokens": "ARRAY[STRING]", "t.ids": "ARRAY[UINT32]", "t.nested": "ARRAY[ARRAY]",
         "t.empty": "ARRAY[FLOAT32]"}


def test_metadata_round_trip(tmp_path):
    path = tmp_path / "meta.gguf"
    vkattn.write_gguf(str(path), METADATA, [])
    got = vkattn.read_gguf(str(path))
    assert got["metadata_types"] == TYPES
    assert list(got["metadata"]) == list(METADATA)
    for key, value in METADATA.items():
        expected = value[0] if isinstance(value, tuple) else value
        if key == "t.f32":
            expected = float(np.float32(0.1))
        assert got["metadata"][key] == expected, key
    raw = path.read_bytes()
    magic, version, tensors, keys = struct.unpack_from("<4sIQQ", raw)
    assert (magic, version, tensors, keys) == (b"GGUF", 3, 0, len(METADATA))


@pytest.mark.parametrize("alignment", [32, 64])
def test_tensors_round_trip(tmp_path, rng, alignment):
    shapes = {"F32": (3, 5, 7), "F16": (5, 11), "BF16": (2, 3, 9), "Q8_0": (7, 64), "Q4_0": (3, 2, 96)}
    refs = {"F32": lambda x: x, "F16": f16_round, "BF16": bf16_ref, "Q8_0": q8_0_ref, "Q4_0": q4_0_ref}
    tensors = []
    for kind, shape in shapes.items():
        x = (rng.standard_normal(shape) * np.geomspace(1e-2, 1e2, shape[-1])).astype(np.float32)
        tensors.append((f"w.{kind.lower()}", x, kind))
    tensors.append(("w.from_float64", rng.standard_normal((2, 32)), "Q8_0"))
    path = tmp_path / "t.gguf"
    vkattn.write_gguf(str(path), {"general.architecture": "llama"}, tensors, alignment=alignment)
    got = vkattn.read_gguf(str(path))
    assert got["alignment"] == alignment
    assert list(got["tensors"]) == [t[0] for t in tensors]
    for name, x, kind in tensors:
        values = got["tensors"][name]
        assert got["tensor_types"][name] == kind
        assert values.shape == x.shape and values.dtype == np.float32
        expected = refs[kind](np.asarray(x, dtype=np.float32))
        worst = float(np.abs(values - expected).max())
        assert worst == 0.0, f"{name}: worst |error| {worst} against the NumPy reading of {kind}"
    if alignment != 32:
        assert got["metadata"]["general.alignment"] == alignment


@pytest.mark.parametrize("metadata, tensors, match", [
    ({"k": (256, "UINT77")}, [], "k.*unknown GGUF value type"),
    ({"k": (-1, "UINT32")}, [], "k.*does not fit UINT32"),
    ({"k": (300, "UINT8")}, [], "k.*does not fit UINT8"),
    ({"k": []}, [], "k.*empty list"),
    ({"k": [1, "a"]}, [], "k"),
    ({"k": None}, [], "k.*cannot store"),
    ({"k": ("x", "UINT32")}, [], "k.*needs an int"),
    ({}, [("w", np.zeros((2, 30), np.float32), "Q8_0")], "w.*not a multiple of the Q8_0 block"),
    ({}, [("w", np.zeros(32, np.float32), "Q9_9")], "w.*unknown ggml type"),
    ({}, [("w", np.zeros(32, np.float32), "IQ2_XXS")], "w.*does not quantize"),
    ({}, [("w", np.zeros(32, np.float32), "F32"), ("w", np.zeros(32, np.float32), "F32")], "w"),
])
def test_bad_input_names_the_argument(tmp_path, metadata, tensors, match):
    with pytest.raises((ValueError, TypeError), match=match):
        vkattn.write_gguf(str(tmp_path / "bad.gguf"), metadata, tensors)


def test_reading_a_bad_file_names_it(tmp_path):
    bad = tmp_path / "truncated.gguf"
    vkattn.write_gguf(str(bad), {"general.architecture": "llama"}, [("w", np.ones((4, 32), np.float32), "F32")])
    bad.write_bytes(bad.read_bytes()[:-8])
    with pytest.raises(ValueError, match="truncated.gguf"):
        vkattn.read_gguf(str(bad))
    with pytest.raises(FileNotFoundError, match="missing.gguf") as missing:  # as Python's open() says it
        vkattn.read_gguf(str(tmp_path / "missing.gguf"))
    assert missing.value.filename == str(tmp_path / "missing.gguf")


@pytest.mark.parametrize("kind", ["Q4_K", "Q5_K", "Q6_K"])
def test_k_quants_stay_within_half_a_step(tmp_path, rng, kind):
    """Each value within half a quantization step of its super-block of 256 (scales rounded
    outward, so nothing is clipped): Q4_K/Q5_K (1 + 1/63)^2 R / (2 Q), R = max(0, max x) -
    min(0, min x), Q = 15 / 31; Q6_K (1 + 1/127) max|x| / 62; plus f16's smallest step."""
    x = (rng.standard_normal((3, 512)) * np.geomspace(1e-3, 1e1, 512) + 0.5).astype(np.float32)
    path = tmp_path / "k.gguf"
    vkattn.write_gguf(str(path), {}, [("w", x, kind)])
    got = vkattn.read_gguf(str(path))
    assert got["tensor_types"]["w"] == kind
    blocks = x.reshape(-1, 256).astype(np.float64)
    if kind == "Q6_K":
        step = (1 + 1 / 127) * np.abs(blocks).max(axis=1) / 62
    else:
        span = np.maximum(0, blocks.max(axis=1)) - np.minimum(0, blocks.min(axis=1))
        step = (1 + 1 / 63) ** 2 * span / (2 * (15 if kind == "Q4_K" else 31))
    ratio = np.abs(got["tensors"]["w"].reshape(-1, 256) - blocks) / ((step + 2.0 ** -24) * (1 + 1e-5))[:, None]
    assert ratio.max() <= 1.0, f"worst error {ratio.max():.4f} x the half-step bound"
    assert ratio.max() > 0.3, "the values were hardly quantized"
