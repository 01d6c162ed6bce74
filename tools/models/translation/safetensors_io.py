"""Minimal safetensors reader/writer (F32 only) using json + numpy.

Layout (the public safetensors format): 8-byte little-endian unsigned header
length N, N bytes of UTF-8 JSON header (padded with spaces to a multiple of 8),
then the raw tensor bytes. Header entries: {"dtype": "F32", "shape": [...],
"data_offsets": [begin, end]} relative to the start of the byte buffer, plus an
optional "__metadata__" object of string -> string. Tensors are written in
sorted name order, C order, little-endian.
"""

import json
import struct

import numpy as np


def save_file(tensors, path, metadata=None):
    names = sorted(tensors)
    header = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs = []
    offset = 0
    for name in names:
        arr = np.ascontiguousarray(np.asarray(tensors[name], dtype="<f4"))
        raw = arr.tobytes(order="C")
        header[name] = {"dtype": "F32", "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    hbytes = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    hbytes += b" " * ((-len(hbytes)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hbytes)))
        f.write(hbytes)
        for raw in blobs:
            f.write(raw)


def load_file(path):
    """Returns (dict name -> np.ndarray float32, metadata dict)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError("truncated safetensors file")
    (n,) = struct.unpack("<Q", data[:8])
    if 8 + n > len(data):
        raise ValueError("safetensors header length exceeds file size")
    header = json.loads(data[8:8 + n].decode("utf-8"))
    base = 8 + n
    metadata = header.pop("__metadata__", {}) or {}
    tensors = {}
    for name, info in header.items():
        if info["dtype"] != "F32":
            raise ValueError("unsupported dtype %s for %s" % (info["dtype"], name))
        begin, end = info["data_offsets"]
        shape = tuple(info["shape"])
        count = int(np.prod(shape)) if shape else 1
        if end - begin != 4 * count or base + end > len(data):
            raise ValueError("bad data_offsets for %s" % name)
        arr = np.frombuffer(data, dtype="<f4", count=count, offset=base + begin)
        tensors[name] = arr.reshape(shape).astype(np.float32)
    return tensors, metadata
