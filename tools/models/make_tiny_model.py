#!/usr/bin/env python3
"""Writes the shipped tiny models (assets/models/tiny_llama, assets/models/tiny_qwen2) with vkattn's
own GGUF writer (vkattn.write_gguf).

With --checkpoint PREFIX (what tools/models/train_tiny_model.py wrote: PREFIX.npz, PREFIX.json) the F32
file is written from the trained weights; every other file of that model is then derived from
the F32 file, read back with vkattn.read_gguf, so running without --checkpoint regenerates the
quantized files from the shipped F32 file alone.

Files and tensor types (norms and biases, one-dimensional, stay F32 everywhere):
  -f32, -f16, -q8_0, -q4_0   every matrix in that type;
  -q4_k_m                    llama.cpp's Q4_K_M mix: Q6_K for output.weight and for attn_v and
                             ffn_down in the layers llama.cpp gives more bits (the last of two),
                             Q4_K for every other matrix.

usage: make_tiny_model.py {llama,qwen2} [--checkpoint PREFIX] [--out assets/models]
(PYTHONPATH must reach the built vkattn module, e.g. build/python)
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np
import vkattn

# Weight types per arch; qwen2 ships fewer to keep the assets small.
FILES = {"llama": ["f32", "f16", "q8_0", "q4_0", "q4_k_m"], "qwen2": ["f32", "q8_0"]}
# llama.cpp's llama_ftype numbers for general.file_type.
FILE_TYPE = {"f32": 0, "f16": 1, "q4_0": 2, "q8_0": 7, "q4_k_m": 15}


def more_bits(i: int, n: int) -> bool:
    """llama.cpp's choice of the layers whose attn_v / ffn_down get Q6_K under Q4_K_M."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def tensor_type(name: str, array: np.ndarray, kind: str, layers: int) -> str:
    if array.ndim == 1 or kind == "f32":
        return "F32"
    if kind != "q4_k_m":
        return kind.upper()
    if name == "output.weight":
        return "Q6_K"
    if name.endswith((".attn_v.weight", ".ffn_down.weight")) and more_bits(int(name.split(".")[1]), layers):
        return "Q6_K"
    return "Q4_K"


def metadata(arch: str, info: dict) -> dict:
    h, tok = info["hparams"], info["tokenizer"]
    u32 = lambda v: (int(v), "UINT32")  # noqa: E731
    return {
        "general.architecture": arch,
        "general.name": h["name"],
        "general.file_type": u32(0),
        f"{arch}.vocab_size": u32(h["vocab_size"]),
        f"{arch}.context_length": u32(h["context"]),
        f"{arch}.embedding_length": u32(h["dim"]),
        f"{arch}.block_count": u32(h["layers"]),
        f"{arch}.feed_forward_length": u32(h["ffn"]),
        f"{arch}.attention.head_count": u32(h["heads"]),
        f"{arch}.attention.head_count_kv": u32(h["kv_heads"]),
        f"{arch}.rope.freq_base": (float(h["rope_base"]), "FLOAT32"),
        f"{arch}.rope.dimension_count": u32(h["dim"] // h["heads"]),
        f"{arch}.attention.layer_norm_rms_epsilon": (float(h["rms_eps"]), "FLOAT32"),
        "tokenizer.ggml.model": "gpt2",
        "tokenizer.ggml.pre": tok["pre"],
        "tokenizer.ggml.tokens": (tok["tokens"], "STRING"),
        "tokenizer.ggml.token_type": (tok["token_types"], "INT32"),
        "tokenizer.ggml.merges": (tok["merges"], "STRING"),
        "tokenizer.ggml.bos_token_id": u32(tok["eot"]),
        "tokenizer.ggml.eos_token_id": u32(tok["eot"]),
        "tokenizer.ggml.add_bos_token": True,
    }


def typed(value, type_name: str):
    """A value read back, with the type it was read with, ready for write_gguf."""
    if type_name.startswith("ARRAY["):
        return (value, type_name[6:-1])
    return (value, type_name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("arch", choices=sorted(FILES))
    parser.add_argument("--checkpoint", type=Path)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[2] / "assets" / "models")
    args = parser.parse_args()
    folder = args.out / f"tiny_{args.arch}"
    folder.mkdir(parents=True, exist_ok=True)
    f32 = folder / f"tiny-{args.arch}-f32.gguf"
    if args.checkpoint:
        info = json.loads(args.checkpoint.with_suffix(".json").read_text())
        weights = np.load(args.checkpoint.with_suffix(".npz"))
        vkattn.write_gguf(str(f32), metadata(args.arch, info), [(n, weights[n], "F32") for n in weights.files])
        print(f"wrote {f32} ({f32.stat().st_size} bytes)")
    source = vkattn.read_gguf(str(f32))
    layers = source["metadata"][f"{args.arch}.block_count"]
    for kind in FILES[args.arch][1:]:
        path = folder / f"tiny-{args.arch}-{kind}.gguf"
        meta = {k: typed(v, source["metadata_types"][k]) for k, v in source["metadata"].items()}
        meta["general.file_type"] = (FILE_TYPE[kind], "UINT32")
        if kind != "f16":
            meta["general.quantization_version"] = (2, "UINT32")
        tensors = [(n, a, tensor_type(n, a, kind, layers)) for n, a in source["tensors"].items()]
        try:
            vkattn.write_gguf(str(path), meta, tensors)
        except ValueError as e:
            if "does not quantize" not in str(e):
                raise
            print(f"skipped {path.name}: {e}")
            continue
        print(f"wrote {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
