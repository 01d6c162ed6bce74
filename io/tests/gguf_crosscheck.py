#!/usr/bin/env python3
"""vkattn's GGUF code against gguf-py, llama.cpp's own Python GGUF package (PyPI `gguf`).

1. GGUF v3 files written by gguf.GGUFWriter (alignments 32 and 64; metadata of every value type,
   nested arrays included; tensors in F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K and Q6_K) are read
   by vkattn (io/tests/gguf_probe.cpp): metadata must match exactly and every dequantized float
   must be bit-identical to gguf.quants.dequantize.
   Both must know the same ggml type ids, names and block sizes.
2. vkattn's F16, BF16, Q8_0 and Q4_0 quantization must give the bytes of gguf.quants.quantize;
   its own Q4_K, Q5_K and Q6_K encoders' bytes (gguf-py has no K-quant quantizer) must decode
   through gguf.quants.dequantize bit-identically to vkattn's decoding, within the encoders'
   documented error bound of the source (base/src/k_quant_blocks.hpp).
3. A file written by vkattn's GgufWriter must read back through gguf.GGUFReader with the same
   metadata and tensor bytes.

usage: gguf_crosscheck.py PROBE WORKDIR
gguf (the version pinned below, so that results do not move under the tests; raise it on purpose)
is installed from PyPI into gguf-venv beside WORKDIR, a venv that sees the system's numpy, unless
the running interpreter already has that version. Exits 77 (ctest's skip) when PyPI cannot be
reached, except under CI=true, where that is a failure.
"""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))  # pinned_packages
import pinned_packages  # noqa: E402

GGUF_VERSION = pinned_packages.GGUF_VERSION


def ensure_gguf(work: Path) -> None:
    """Re-runs this script in a venv with the pinned packages when the running interpreter lacks them."""
    pinned_packages.ensure(__file__, {"gguf": GGUF_VERSION}, work.parent / "gguf-venv")


def main() -> int:
    probe, work = Path(sys.argv[1]), Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    ensure_gguf(work)
    import numpy as np
    import gguf
    from gguf import GGMLQuantizationType as Q
    from gguf import GGUFValueType as V

    rng = np.random.default_rng(20240611)
    failures = []

    def run_probe(*args):
        result = subprocess.run([str(probe), *map(str, args)], capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"gguf_probe {' '.join(map(str, args))} failed:\n{result.stderr}")

    # --- 0. the same ggml type table ------------------------------------------------------------
    listing = subprocess.run([str(probe), "types"], capture_output=True, text=True, check=True).stdout
    ours = {int(i): (name, int(block), int(size)) for i, name, block, size in map(str.split, listing.splitlines())}
    theirs = {int(t): (t.name, *gguf.GGML_QUANT_SIZES[t]) for t in Q}
    if ours != theirs:
        failures.append(f"ggml type table: only vkattn {sorted(set(ours.items()) - set(theirs.items()))}, "
                        f"only gguf-py {sorted(set(theirs.items()) - set(ours.items()))}")

    def same_bits(name, ours, theirs):
        ours, theirs = np.ascontiguousarray(ours, np.float32), np.ascontiguousarray(theirs, np.float32)
        if ours.shape != theirs.shape:
            failures.append(f"{name}: shape {ours.shape}, gguf-py {theirs.shape}")
            return
        differ = np.flatnonzero(ours.view(np.uint32) != theirs.view(np.uint32))
        if differ.size:
            i = differ[0]
            failures.append(f"{name}: {differ.size} of {ours.size} floats differ; first at {i}: "
                            f"{ours.flat[i]!r} vs gguf-py {theirs.flat[i]!r}")

    # --- 1. gguf-py writes, vkattn reads -------------------------------------------------------
    metadata = [  # key, value, type, element type
        ("t.u8", 200, V.UINT8, None), ("t.i8", -100, V.INT8, None),
        ("t.u16", 60000, V.UINT16, None), ("t.i16", -30000, V.INT16, None),
        ("t.u32", 4000000000, V.UINT32, None), ("t.i32", -2000000000, V.INT32, None),
        ("t.f32", 0.1, V.FLOAT32, None), ("t.bool", True, V.BOOL, None),
        ("t.string", "h\u00e9llo \u2581world", V.STRING, None),
        ("t.u64", 2**64 - 1, V.UINT64, None), ("t.i64", -2**63, V.INT64, None),
        ("t.f64", math.pi, V.FLOAT64, None),
        ("t.strings", ["<s>", "", "\u2581the"], V.ARRAY, V.STRING),
        ("t.i32s", [1, -2, 3], V.ARRAY, V.INT32),
        ("t.u64s", [2**40, 0], V.ARRAY, V.UINT64),
        ("t.f32s", [0.5, -0.1], V.ARRAY, V.FLOAT32),
        ("t.bools", [True, False], V.ARRAY, V.BOOL),
        ("t.nested", [[1, 2], [3]], V.ARRAY, None),
    ]

    def k_quant_blocks(qtype, rows, cols):
        """Random blocks (every scale and quant bit pattern) with finite f16 scales."""
        block, size = gguf.GGML_QUANT_SIZES[qtype]
        raw = rng.integers(0, 256, size=(rows, cols // block, size), dtype=np.uint8)
        scales = {Q.Q4_K: [0, 2], Q.Q5_K: [0, 2], Q.Q6_K: [size - 2], Q.Q8_0: [0], Q.Q4_0: [0]}[qtype]
        for at in scales:
            d = rng.uniform(-2.0, 2.0, size=(rows, cols // block)).astype(np.float16)
            raw[:, :, at:at + 2] = d.view(np.uint8).reshape(rows, cols // block, 2)
        return raw.reshape(rows, -1)

    rows, cols = 4, 512
    x = (rng.standard_normal((rows, cols)) * np.array([[0.01], [1.0], [30.0], [0.0]])).astype(np.float32)
    x[1, :8] = [127.0, 2.5, -3.5, 0.5, -0.5, 1e-6, -1e-8, 0.0]
    tensors = {  # name -> (stored array for the writer, raw type or None, ggml type)
        "f32": (x, None, Q.F32),
        "f16": (x.astype(np.float16), None, Q.F16),
        "bf16": (gguf.quants.quantize(x, Q.BF16), Q.BF16, Q.BF16),
        "q8_0": (gguf.quants.quantize(x, Q.Q8_0), Q.Q8_0, Q.Q8_0),
        "q4_0": (gguf.quants.quantize(x, Q.Q4_0), Q.Q4_0, Q.Q4_0),
    }
    for qtype in (Q.Q8_0, Q.Q4_0, Q.Q4_K, Q.Q5_K, Q.Q6_K):
        tensors[f"random.{qtype.name.lower()}"] = (k_quant_blocks(qtype, rows, cols), qtype, qtype)

    for alignment in (32, 64):
        path = work / f"gguf_py_a{alignment}.gguf"
        writer = gguf.GGUFWriter(path, arch="llama")
        if alignment != 32:
            writer.add_custom_alignment(alignment)
        for key, value, vtype, sub in metadata:
            writer.add_key_value(key, value, vtype, sub_type=sub)
        for name, (array, raw, _) in tensors.items():
            writer.add_tensor(f"blk.0.{name}", array, raw_dtype=raw)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()

        out = work / f"vkattn_a{alignment}"
        out.mkdir(exist_ok=True)
        run_probe("read", path, out)
        report = json.loads((out / "metadata.json").read_text())
        where = f"alignment {alignment}"
        if report["version"] != 3 or report["alignment"] != alignment:
            failures.append(f"{where}: version {report['version']}, alignment {report['alignment']}")
        got = report["metadata"]
        expected_meta = [("general.architecture", "llama", V.STRING, None)] + metadata
        if alignment != 32:
            expected_meta.append(("general.alignment", alignment, V.UINT32, None))
        for key, value, vtype, sub in expected_meta:
            if key not in got:
                failures.append(f"{where}: metadata {key} missing")
                continue
            if vtype == V.FLOAT32:
                value = float(np.float32(value))
            if sub == V.FLOAT32:
                value = [float(np.float32(v)) for v in value]
            element = (sub or (V.INT32 if vtype == V.ARRAY else vtype)).name
            if got[key]["type"] != vtype.name or got[key]["element_type"] != element or got[key]["value"] != value:
                failures.append(f"{where}: metadata {key} = {got[key]}, expected {vtype.name} of {element} {value!r}")
        if len(got) != len(expected_meta):
            failures.append(f"{where}: {len(got)} metadata keys, expected {len(expected_meta)}")
        for name, (array, raw, qtype) in tensors.items():
            full = f"blk.0.{name}"
            info = report["tensors"].get(full)
            if info is None or info["type"] != qtype.name or info["offset"] % alignment:
                failures.append(f"{where}: tensor {full} is {info}")
                continue
            theirs = gguf.quants.dequantize(array if raw is None else array, qtype)
            same_bits(f"{where}: {full} ({qtype.name})", np.load(out / f"{full}.npy"), theirs)

    # --- 2. vkattn quantizes like gguf-py ------------------------------------------------------
    source = work / "quantize_source.npy"
    q = x.copy()
    q[3, :32] = 0.0                      # an all-zero block: d = 0
    q[3, 32:64] = np.arange(32) - 16.0   # the extreme -16 sets d = 2 for Q4_0
    np.save(source, q)
    for qtype in (Q.F16, Q.BF16, Q.Q8_0, Q.Q4_0):
        out = work / f"quantized.{qtype.name}.bin"
        run_probe("quantize", qtype.name, source, out)
        ours = out.read_bytes()
        theirs = np.ascontiguousarray(gguf.quants.quantize(q, qtype)).tobytes()
        if qtype == Q.Q4_0:
            # ggml's quantize_row_q4_0_ref starts from max = +0.0, so a block of zeros gets
            # d = +0.0 / -8 = -0.0 (f16 0x8000); gguf-py takes the block's first element instead,
            # which gives +0.0 when that is -0.0. vkattn follows ggml.
            blocks = np.frombuffer(theirs, np.uint8).reshape(-1, 18).copy()
            blocks[np.abs(q.reshape(-1, 32)).max(axis=1) == 0, 0:2] = [0x00, 0x80]
            theirs = blocks.tobytes()
        if ours != theirs:
            first = next(i for i in range(min(len(ours), len(theirs))) if ours[i] != theirs[i]) \
                if len(ours) == len(theirs) else None
            failures.append(f"quantize {qtype.name}: {len(ours)} bytes vs gguf-py {len(theirs)}; first difference at "
                            f"byte {first}")

    k_source = np.concatenate([q, np.stack([
        np.full(cols, 3.25), np.full(cols, -0.7),                          # constant blocks
        -np.abs(rng.standard_normal(cols)) - 2.0,                          # negative only
        np.where(np.arange(cols) == 77, 1000.0, 0.01 * rng.standard_normal(cols)),  # one outlier
    ]).astype(np.float32)])
    k_path = work / "k_quantize_source.npy"
    np.save(k_path, k_source)
    for qtype in (Q.Q4_K, Q.Q5_K, Q.Q6_K):
        blocks_out = work / f"quantized.{qtype.name}.bin"
        run_probe("quantize", qtype.name, k_path, blocks_out)
        raw = np.frombuffer(blocks_out.read_bytes(), np.uint8).reshape(k_source.shape[0], -1)
        theirs = gguf.quants.dequantize(raw, qtype).reshape(-1)
        ours_npy = work / f"dequantized.{qtype.name}.npy"
        run_probe("dequantize", qtype.name, blocks_out, ours_npy)
        same_bits(f"decode of vkattn's {qtype.name} blocks", np.load(ours_npy), theirs)
        # The encoder's bound per super-block (k_quant_blocks.hpp), with its float slack.
        x = k_source.reshape(-1, 256).astype(np.float64)
        err = np.abs(theirs.reshape(-1, 256) - x).max(axis=1)
        if qtype == Q.Q6_K:
            amax = np.abs(x).max(axis=1)
            bound = (1 + 1 / 127) * amax / 62 * (1 + 1 / 512) + 1e-6 * amax + 2.0 ** -24
        else:
            levels = 15 if qtype == Q.Q4_K else 31
            rng_ = np.maximum(x.max(axis=1), 0) - np.minimum(x.min(axis=1), 0)
            bound = (1 + 1 / 63) ** 2 * rng_ / (2 * levels) * (1 + 1 / 512) + 1e-6 * rng_ + 2.0 ** -24
        if np.any(err > bound):
            b = int(np.argmax(err - bound))
            failures.append(f"{qtype.name} round trip: super-block {b} error {err[b]} exceeds its bound {bound[b]}")

    # --- 3. vkattn writes, gguf-py reads -------------------------------------------------------
    sample = work / "vkattn_sample.gguf"
    run_probe("write", sample)
    reader = gguf.GGUFReader(sample)
    expected_fields = {
        "general.alignment": 64, "general.architecture": "llama", "sample.u8": 7, "sample.i16": -300,
        "sample.u32": 4000000000, "sample.i64": -5, "sample.f32": 0.25, "sample.f64": 1.0 / 3.0,
        "sample.bool": False, "sample.tokens": ["<s>", "h\u00e9", "</s>"], "sample.scores": [-1.5, 0.0, 2.0],
    }
    for key, value in expected_fields.items():
        field = reader.fields.get(key)
        got = None if field is None else field.contents()
        if got != value:
            failures.append(f"GGUFReader: {key} = {got!r}, expected {value!r}")
    ramp = ((np.arange(128) * 37 % 101 - 50) / 16).astype(np.float32).reshape(2, 64)
    stored = {"sample.f32": ramp.tobytes(), "sample.f16": ramp.astype(np.float16).tobytes()}
    for name, qtype in (("sample.bf16", Q.BF16), ("sample.q8_0", Q.Q8_0), ("sample.q4_0", Q.Q4_0)):
        stored[name] = gguf.quants.quantize(ramp, qtype).tobytes()
    if reader.alignment != 64:
        failures.append(f"GGUFReader: alignment {reader.alignment}")
    for t in reader.tensors:
        if t.data.tobytes() != stored.get(t.name) or list(t.shape) != [64, 2] or t.data_offset % 64:
            failures.append(f"GGUFReader: tensor {t.name} ({t.tensor_type.name}, shape {list(t.shape)}) differs")
    if sorted(t.name for t in reader.tensors) != sorted(stored):
        failures.append(f"GGUFReader: tensors {[t.name for t in reader.tensors]}")

    for f in failures:
        print("FAIL", f)
    print(f"gguf_crosscheck: gguf {gguf_version()}, {len(tensors)} tensor types x 2 alignments, "
          f"{len(metadata)} metadata keys, 4 quantizers + 3 K-quant encoders, 1 written file: "
          f"{'all bit-identical' if not failures else f'{len(failures)} failures'}")
    return 1 if failures else 0


def gguf_version() -> str:
    try:
        from importlib.metadata import version
        return version("gguf")
    except Exception:  # noqa: BLE001 - only for the report line
        return "?"


if __name__ == "__main__":
    sys.exit(main())
