"""What the vkattn.view tests share: the viewer (VKATTN_VIEWER, as ctest sets it), attention maps
with a clear maximum per row, the temporary folders view() makes, and reading back what the
viewer writes: its PNGs (8-bit RGBA, as stb_image_write makes them) decoded with zlib and NumPy
alone."""
import os
import struct
import zlib

import numpy as np
import pytest

VIEWER = os.environ.get("VKATTN_VIEWER")
needs_viewer = pytest.mark.skipif(not VIEWER, reason="VKATTN_VIEWER (path to vkattn-viewer) is not set")


def attention(rng, rows, cols):
    """Softmax rows, each with one weight well above the others."""
    logits = rng.standard_normal((rows, cols)) * 2.0
    logits[np.arange(rows), rng.permutation(cols)[:rows] if rows <= cols else rng.integers(0, cols, rows)] += 4.0
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


def view_folders(tmp):
    """The temporary folders of view() under tmp (the tests point tempfile there)."""
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("vkattn_view_"))


def _unfilter_row(kind, line, prev):
    """One scanline of RGBA8 (int32 arrays of width * 4) with its PNG filter undone."""
    if kind == 0:
        return line
    if kind == 2:
        return (line + prev) & 0xFF
    if kind == 1:  # Sub: a running sum per channel
        return np.cumsum(line.reshape(-1, 4), axis=0).reshape(-1) & 0xFF
    # Average and Paeth depend on the byte just decoded: plain Python ints, byte by byte.
    raw, up, cur = line.tolist(), prev.tolist(), [0] * len(line)
    for i, v in enumerate(raw):
        a = cur[i - 4] if i >= 4 else 0
        b = up[i]
        if kind == 3:
            p = (a + b) >> 1
        else:
            c = up[i - 4] if i >= 4 else 0
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        cur[i] = (v + p) & 0xFF
    return np.array(cur, dtype=np.int32)


def read_png(path):
    """RGBA8 pixels of a non-interlaced 8-bit RGBA PNG, as int32 [h, w, 4]."""
    data = path.read_bytes() if hasattr(path, "read_bytes") else open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert (depth, color) == (8, 6), "expected 8-bit RGBA"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, width * 4 + 1).astype(np.int32)
    out = np.zeros((height, width * 4), dtype=np.int32)
    prev = np.zeros(width * 4, dtype=np.int32)
    for y in range(height):
        prev = out[y] = _unfilter_row(raw[y, 0], raw[y, 1:], prev)
    return out.reshape(height, width, 4)


def luminance(rgb):
    """Relative luminance of sRGB pixels [..., 3 or 4] in 0..1."""
    c = rgb[..., :3] / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return lin @ np.array([0.2126, 0.7152, 0.0722])


def cell_centres(layout):
    """(y, x) pixel centres of every bin drawn, from the layout record, as two int arrays."""
    rows, cols = layout["grid"]["rowPixels"], layout["grid"]["colPixels"]
    ys = np.array([int((rows[i] + rows[i + 1]) / 2) for i in range(len(rows) - 1)])
    xs = np.array([int((cols[j] + cols[j + 1]) / 2) for j in range(len(cols) - 1)])
    return ys, xs


def heatmap_pixels(image, layout):
    """The pixels inside the heatmap's rectangle (its border excluded)."""
    h = layout["heatmap"]
    y0, y1 = int(np.ceil(h["y0"])) + 1, int(np.floor(h["y1"])) - 1
    x0, x1 = int(np.ceil(h["x0"])) + 1, int(np.floor(h["x1"])) - 1
    return image[y0:y1, x0:x1]
