"""A map far wider than tall (1 x N, a query over a long context) or far taller than wide is drawn
as a readable strip, not a hairline of square cells, with its long axis's labels thinned; by
default the figure is cut to fit it."""
import json

import numpy as np

import vkattn
from view_support import heatmap_pixels, needs_viewer, read_png

pytestmark = needs_viewer


def coloured_run(line):
    """The length of the longest run of pixels along `line` ([n, 4]) that are neither paper
    (white) nor the map's grey border."""
    rgb = line[:, :3]
    cell = ~((rgb == 255).all(axis=1) | ((rgb == 128).all(axis=1)))
    best = run = 0
    for c in cell:
        run = run + 1 if c else 0
        best = max(best, run)
    return best


def test_a_1_by_5000_map_is_a_strip_at_least_40_px_tall(tmp_path, rng):
    p = rng.random(5000).astype(np.float32)
    p /= p.sum()
    png, layout_path = tmp_path / "x.png", tmp_path / "x.json"
    vkattn.view(p[None, :5000], ["q"], [str(i) for i in range(5000)], out=png, layout=layout_path)
    image, layout = read_png(png), json.loads(layout_path.read_text())
    assert layout["cells"]["strip"] and layout["cells"]["stretch"]
    h = layout["heatmap"]
    assert h["y1"] - h["y0"] >= 40
    assert h["x1"] - h["x0"] > 0.8 * image.shape[1], "the strip runs across the figure"
    # In the picture: columns of the strip are coloured at least 40 px down.
    for x in np.linspace(h["x0"] + 3, h["x1"] - 3, 7).astype(int):
        assert coloured_run(image[:, x]) >= 40, f"column {x}"
    cells = heatmap_pixels(image, layout)
    assert len(np.unique(cells[cells.shape[0] // 2, :, :3], axis=0)) > 50, "the weights vary along the strip"
    # Labels: thinned to what fits, the first of them kept, the query's own label drawn.
    columns = [c["col"] for c in layout["labels"]["columns"]]
    assert 10 <= len(columns) <= 400 and columns[0] == 0
    assert np.all(np.diff(columns) == columns[1] - columns[0]), "every k-th column"
    # The default size fits the strip: not 1000 px of blank paper.
    assert image.shape[1] == 1600 and image.shape[0] <= 400, image.shape


def test_a_tall_map_is_a_column_at_least_40_px_wide(tmp_path, rng):
    values = np.linspace(0.0, 1.0, 3000, dtype=np.float32)[:, None]
    png, layout_path = tmp_path / "col.png", tmp_path / "col.json"
    vkattn.view(values, [f"q{i}" for i in range(3000)], ["k"], out=png, layout=layout_path)
    image, layout = read_png(png), json.loads(layout_path.read_text())
    assert layout["cells"]["strip"]
    h = layout["heatmap"]
    assert h["x1"] - h["x0"] >= 40 and h["y1"] - h["y0"] > 0.8 * image.shape[0]
    y = int((h["y0"] + h["y1"]) / 2)
    assert coloured_run(image[y]) >= 40
    assert image.shape[1] < 1600, "cut to fit the column"


def test_an_explicit_size_is_kept_and_the_strip_still_readable(tmp_path, rng):
    p = rng.random(700).astype(np.float32)
    png, layout_path = tmp_path / "s.png", tmp_path / "s.json"
    vkattn.view(p[None, :] / p.sum(), ["q"], [str(i) for i in range(700)], out=png, layout=layout_path,
                size=(1200, 900))
    image, layout = read_png(png), json.loads(layout_path.read_text())
    assert image.shape[:2] == (900, 1200)
    h = layout["heatmap"]
    assert h["y1"] - h["y0"] >= 40
