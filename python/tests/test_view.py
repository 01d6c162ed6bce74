"""vkattn.view and vkattn.save_attention: NumPy maps in the viewer's folder format, and the viewer
run headless on them; the PNG is read back and each row's brightest cell compared with the array."""
import json
import os
import struct
import tempfile
import time
import zlib

import numpy as np
import pytest

import vkattn

VIEWER = os.environ.get("VKATTN_VIEWER")
needs_viewer = pytest.mark.skipif(not VIEWER, reason="VKATTN_VIEWER (path to vkattn-viewer) is not set")


def read_png(path):
    """RGBA8 pixels of a non-interlaced 8-bit RGBA PNG (what the viewer writes), as [h, w, 4]."""
    data = path.read_bytes()
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
    raw = zlib.decompress(idat)
    stride = width * 4
    out = np.zeros((height, stride), dtype=np.int32)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int32)
        cur = np.zeros(stride, dtype=np.int32)
        for x in range(stride):
            a = cur[x - 4] if x >= 4 else 0
            b = prev[x]
            c = prev[x - 4] if x >= 4 else 0
            if kind == 0:
                p = 0
            elif kind == 1:
                p = a
            elif kind == 2:
                p = b
            elif kind == 3:
                p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            cur[x] = (line[x] + p) & 0xFF
        out[y] = cur
        prev = cur
    return out.reshape(height, width, 4)


def luminance(rgb):
    c = rgb[..., :3] / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return lin @ np.array([0.2126, 0.7152, 0.0722])


def attention(rng, rows, cols):
    logits = rng.standard_normal((rows, cols)) * 2.0
    logits[np.arange(rows), rng.permutation(cols)[:rows] if rows <= cols else rng.integers(0, cols, rows)] += 4.0
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


def test_save_attention_writes_the_folder_format(tmp_path, rng):
    attn = attention(rng, 4, 6)
    rows, cols = ["le", "chat", "dort", "."], ["the", "cat", "is", "sleeping", ".", "<eos>"]
    out = vkattn.save_attention(tmp_path / "maps", attn, rows, cols)
    assert out == str(tmp_path / "maps")
    np.testing.assert_array_equal(np.load(tmp_path / "maps" / "attention.npy"), attn)
    assert (tmp_path / "maps" / "row_tokens.txt").read_text(encoding="utf-8").splitlines() == rows
    assert (tmp_path / "maps" / "col_tokens.txt").read_text(encoding="utf-8").splitlines() == cols
    # Square maps share their tokens.
    vkattn.save_attention(tmp_path / "square", attention(rng, 3, 3), ["a", "b", "c"])
    assert (tmp_path / "square" / "col_tokens.txt").read_text().splitlines() == ["a", "b", "c"]


def test_save_attention_rejects_bad_input_by_name(tmp_path, rng):
    with pytest.raises(ValueError, match="row_tokens"):
        vkattn.save_attention(tmp_path, attention(rng, 4, 6), ["a"], ["x"] * 6)
    with pytest.raises(ValueError, match="col_tokens"):
        vkattn.save_attention(tmp_path, attention(rng, 4, 6), ["a"] * 4)
    with pytest.raises(ValueError, match="attn"):
        vkattn.save_attention(tmp_path, np.zeros(5, dtype=np.float32), ["a"] * 5)
    with pytest.raises(ValueError, match="NaN"):
        vkattn.save_attention(tmp_path, np.full((2, 2), np.nan), ["a", "b"])
    with pytest.raises(TypeError, match="row_tokens"):
        vkattn.save_attention(tmp_path, attention(rng, 2, 2), "ab")


@needs_viewer
def test_view_writes_a_png_whose_brightest_cells_are_the_arrays(tmp_path, rng):
    attn = attention(rng, 6, 9)
    rows = [f"r{i}" for i in range(6)]
    cols = [f"c{j}" for j in range(9)]
    png, layout_path = tmp_path / "attn.png", tmp_path / "attn.json"
    assert vkattn.view(attn, rows, cols, out=png, size=(640, 420), layout=layout_path) == str(png)
    image = read_png(png)
    assert image.shape == (420, 640, 4)
    layout = json.loads(layout_path.read_text())
    np.testing.assert_allclose(np.array(layout["grid"]["values"]), attn, rtol=1e-6, atol=1e-7)
    row_px, col_px = layout["grid"]["rowPixels"], layout["grid"]["colPixels"]
    light = np.zeros(attn.shape)
    for r in range(attn.shape[0]):
        for c in range(attn.shape[1]):
            y = int((row_px[r] + row_px[r + 1]) / 2)
            x = int((col_px[c] + col_px[c + 1]) / 2)
            light[r, c] = luminance(image[y, x])
    np.testing.assert_array_equal(light.argmax(axis=1), attn.argmax(axis=1))
    # Square cells by default.
    assert layout["cells"]["width"] == pytest.approx(layout["cells"]["height"])


@needs_viewer
def test_view_reports_a_failing_viewer(tmp_path, rng):
    with pytest.raises(ValueError, match="vkattn-viewer failed"):
        vkattn.view(attention(rng, 3, 3), ["a", "b", "c"], out=tmp_path / "no" / "such" / "dir.png")


def view_folders(tmp):
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("vkattn_view_"))


def test_view_leaves_no_temporary_folder_when_it_raises(tmp_path, rng, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(ValueError, match="row_tokens"):
        vkattn.view(np.ones((3, 3), "f"), ["a"], out=tmp_path / "z.png")
    with pytest.raises(ValueError, match="NaN"):
        vkattn.view(np.full((2, 2), np.nan, "f"), ["a", "b"], out=tmp_path / "z.png")
    assert view_folders(tmp_path) == []


@needs_viewer
def test_view_leaves_no_temporary_folder_after_out(tmp_path, rng, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    png = tmp_path / "a.png"
    vkattn.view(attention(rng, 4, 4), ["a", "b", "c", "d"], out=png, size=(320, 240))
    assert png.exists()
    with pytest.raises(ValueError, match="vkattn-viewer failed"):
        vkattn.view(attention(rng, 3, 3), ["a", "b", "c"], out=tmp_path / "no" / "such" / "dir.png")
    assert view_folders(tmp_path) == []


@needs_viewer
def test_view_window_folder_goes_when_the_window_closes(tmp_path, rng, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for display in ("DISPLAY", "WAYLAND_DISPLAY"):  # no display: the viewer exits at once
        monkeypatch.delenv(display, raising=False)
    window = vkattn.view(attention(rng, 3, 3), ["a", "b", "c"])
    window.wait(timeout=120)
    deadline = time.monotonic() + 10
    while view_folders(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert view_folders(tmp_path) == []
