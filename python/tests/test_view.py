"""vkattn.view and vkattn.save_attention: NumPy maps in the viewer's folder format, and the viewer
run headless on them; the PNG is read back and each row's brightest cell compared with the array."""
import json
import tempfile

import numpy as np
import pytest

import vkattn
from view_support import attention, luminance, needs_viewer, read_png, view_folders

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
