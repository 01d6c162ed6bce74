"""vkattn.view's keyword arguments through out=: each is read back from the PNG's pixels and from
the layout record the viewer writes beside it (layout=), never from the command line alone."""
import json

import numpy as np
import pytest

import vkattn
from view_support import attention, cell_centres, heatmap_pixels, luminance, needs_viewer, read_png

pytestmark = [needs_viewer, pytest.mark.ci]


def export(tmp_path, attn, rows, cols=None, name="fig", **choices):
    """view(out=) with `choices`: the pixels and the layout record."""
    png, layout = tmp_path / f"{name}.png", tmp_path / f"{name}.json"
    assert vkattn.view(attn, rows, cols, out=png, layout=layout, **choices) == str(png)
    return read_png(png), json.loads(layout.read_text())


def tokens(prefix, n):
    return [f"{prefix}{i}" for i in range(n)]


@pytest.fixture
def layers(rng):
    """[2 layers, 3 heads, 5, 7]: every head with its maximum in a column of its own per row."""
    maps = np.zeros((2, 3, 5, 7), np.float32)
    for layer in range(2):
        for head in range(3):
            maps[layer, head] = attention(rng, 5, 7)
    return maps


def brightest_columns(image, layout):
    ys, xs = cell_centres(layout)
    return luminance(image[ys[:, None], xs[None, :]]).argmax(axis=1)


def test_layer_and_head_pick_the_map(tmp_path, layers):
    image, layout = export(tmp_path, layers, tokens("r", 5), tokens("c", 7), layer=1, head=2, size=(640, 420))
    assert image.shape == (420, 640, 4), "size=(width, height)"
    np.testing.assert_allclose(layout["grid"]["values"], layers[1, 2], rtol=1e-6)
    np.testing.assert_array_equal(brightest_columns(image, layout), layers[1, 2].argmax(axis=1))
    assert layout["map"]["title"] == "layer 1, head 2"
    # The defaults: layer 0, head 0, named since there are others.
    image, layout = export(tmp_path, layers, tokens("r", 5), tokens("c", 7), name="default", size=(640, 420))
    np.testing.assert_allclose(layout["grid"]["values"], layers[0, 0], rtol=1e-6)
    np.testing.assert_array_equal(brightest_columns(image, layout), layers[0, 0].argmax(axis=1))
    assert layout["map"]["title"] == "layer 0, head 0"


@pytest.mark.parametrize("how", ["mean", "max"])
def test_heads_aggregates_the_layers_heads(tmp_path, layers, how):
    image, layout = export(tmp_path, layers, tokens("r", 5), tokens("c", 7), layer=1, heads=how, size=(640, 420))
    expected = getattr(layers[1], how)(axis=0)
    np.testing.assert_allclose(layout["grid"]["values"], expected, rtol=1e-5)
    np.testing.assert_array_equal(brightest_columns(image, layout), expected.argmax(axis=1))
    assert layout["map"]["title"] == f"layer 1, {how} of heads"


def test_reduce_colours_merged_bins_by_their_max_or_mean(tmp_path, rng):
    # 240 x 240 cells in about 200 px: bins of several cells each way.
    attn = attention(rng, 240, 240)
    names = tokens("t", 240)
    bright = {}
    for how in ("max", "mean"):
        image, layout = export(tmp_path, attn, names, name=how, reduce=how, colormap="grey", size=(360, 300))
        assert layout["reduce"] == how
        grid = layout["grid"]
        assert grid["reduced"] and grid["rows"] < 240 and grid["cols"] < 240
        row_edges, col_edges = grid["rowEdges"], grid["colEdges"]
        expected = np.array([[getattr(attn[row_edges[y]:row_edges[y + 1], col_edges[x]:col_edges[x + 1]], how)()
                              for x in range(len(col_edges) - 1)] for y in range(len(row_edges) - 1)])
        np.testing.assert_allclose(grid["values"], expected, rtol=1e-5, atol=1e-7)
        bright[how] = luminance(heatmap_pixels(image, layout)).mean()
    # Max-pooling keeps each bin's peak: the picture is brighter than the means'.
    assert bright["max"] > 1.5 * bright["mean"], bright


def test_colormap(tmp_path, rng):
    attn = attention(rng, 6, 9)
    image, layout = export(tmp_path, attn, tokens("r", 6), tokens("c", 9), colormap="grey", size=(640, 420))
    assert layout["colormap"] == "grey"
    cells = heatmap_pixels(image, layout)[..., :3]
    assert (cells[..., 0] == cells[..., 1]).all() and (cells[..., 1] == cells[..., 2]).all(), "grey cells"
    image, layout = export(tmp_path, attn, tokens("r", 6), tokens("c", 9), name="viridis", size=(640, 420))
    assert layout["colormap"] == "viridis"
    cells = heatmap_pixels(image, layout)[..., :3]
    assert (cells[..., 0] != cells[..., 2]).mean() > 0.9, "viridis is not grey"


def test_log_scale_brightens_small_weights(tmp_path, rng):
    attn = attention(rng, 6, 9)
    small = np.unravel_index(np.argmin(np.where(attn > 1e-3, attn, 1.0)), attn.shape)  # a small weight, not ~0
    light = {}
    for log in (False, True):
        image, layout = export(tmp_path, attn, tokens("r", 6), tokens("c", 9), name=f"log{log}", log=log,
                               colormap="grey", size=(640, 420))
        assert layout["scale"] == ("log" if log else "linear")
        ys, xs = cell_centres(layout)
        light[log] = luminance(image[ys[small[0]], xs[small[1]]])
    assert light[True] > light[False] + 0.05, light


def test_stretch_fills_the_space_with_cells_of_its_aspect(tmp_path, rng):
    attn = attention(rng, 4, 12)
    _, square = export(tmp_path, attn, tokens("r", 4), tokens("c", 12), name="square", size=(700, 600))
    image, stretched = export(tmp_path, attn, tokens("r", 4), tokens("c", 12), stretch=True, size=(700, 600))
    assert square["cells"]["width"] == pytest.approx(square["cells"]["height"])
    assert stretched["cells"]["stretch"] and not stretched["cells"]["strip"]
    assert stretched["cells"]["height"] > 2 * stretched["cells"]["width"]
    h = stretched["heatmap"]
    assert h["y1"] - h["y0"] > 2 * (square["heatmap"]["y1"] - square["heatmap"]["y0"])
    # The stretched map's cells are drawn that tall: the middle column's colour holds all the way.
    ys, xs = cell_centres(stretched)
    column = image[int(h["y0"]) + 2:int(h["y1"]) - 2, xs[5], :3]
    assert len(np.unique(column.reshape(-1, 3), axis=0)) == 4, "four rows, four colours"


def test_title(tmp_path, rng):
    attn = attention(rng, 5, 5)
    image, layout = export(tmp_path, attn, tokens("t", 5), title="Prediction \u2192 tokens", size=(640, 420))
    assert layout["map"]["title"] == "Prediction \u2192 tokens"
    plain_image, plain = export(tmp_path, attn, tokens("t", 5), name="untitled", size=(640, 420))
    assert plain["map"]["title"] == "", "a single map has no title unless given"
    # The title takes a line above the map: the map starts lower, and that line holds dark text
    # where the untitled figure has only paper (top left, clear of the labels).
    assert layout["heatmap"]["y0"] > plain["heatmap"]["y0"] + 10
    corner = (slice(24, 36), slice(24, int(min(layout["heatmap"]["x0"], plain["heatmap"]["x0"])) - 10))
    assert (luminance(image[corner]) < 0.2).sum() > 20
    assert (luminance(plain_image[corner]) < 0.2).sum() == 0


def test_bad_choices_are_named(tmp_path, layers):
    row, col = tokens("r", 5), tokens("c", 7)
    out = tmp_path / "never.png"
    with pytest.raises(ValueError, match="'layer' is 2; attn has 2 layers"):
        vkattn.view(layers, row, col, out=out, layer=2)
    with pytest.raises(ValueError, match="'head' is 3; attn has 3 heads"):
        vkattn.view(layers, row, col, out=out, head=3)
    with pytest.raises(ValueError, match="not both"):
        vkattn.view(layers, row, col, out=out, head=1, heads="mean")
    with pytest.raises(ValueError, match="'reduce' is 'median'"):
        vkattn.view(layers, row, col, out=out, reduce="median")
    with pytest.raises(ValueError, match="'colormap' is 'jet'"):
        vkattn.view(layers, row, col, out=out, colormap="jet")
    with pytest.raises(ValueError, match="'size'"):
        vkattn.view(layers, row, col, out=out, size=(10, 10))
    with pytest.raises(ValueError, match="'head' is 1; attn has 1 head \\(0 .. 0\\)"):
        vkattn.view(layers[0, 0], row, col, out=out, head=1)
    with pytest.raises(TypeError, match="'head' must be an int"):
        vkattn.view(layers, row, col, out=out, head="2")
    with pytest.raises(ValueError, match="'layout'.*out="):
        vkattn.view(layers, row, col, layout=tmp_path / "a.json")
    assert not out.exists()


def test_the_return_value_shows_itself_in_a_notebook(tmp_path, rng):
    png = tmp_path / "nb.png"
    shown = vkattn.view(attention(rng, 3, 3), ["a", "b", "c"], out=png, size=(320, 240))
    assert isinstance(shown, str) and shown == str(png)
    assert shown._repr_png_() == png.read_bytes()  # what IPython puts in the notebook
