"""The viewer guide's notebook example (docs/viewer.md): its Python block runs as written (its PNG
path pointed into a temporary folder) and draws the picture committed in the repository, which
that block made."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from view_support import needs_viewer, read_png

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "docs" / "viewer.md"
MARKER = "<!-- python_readme_view:"


def readme_block():
    text = README.read_text(encoding="utf-8")
    start = text.index("```python\n", text.index(MARKER)) + len("```python\n")
    return text[start:text.index("```", start)]


@pytest.mark.ci
@needs_viewer
def test_the_readme_example_draws_the_committed_picture(tmp_path):
    block = readme_block()
    assert "head=2" in block and 'reduce="max"' in block and "out=" in block
    committed = re.search(r'out="([^"]+\.png)"', block).group(1)
    fresh = tmp_path / "readme.png"
    code = block.replace(f'out="{committed}"', f"out={json.dumps(str(fresh))}")
    exec(compile(code, str(README), "exec"), {})
    if fresh.read_bytes() == (ROOT / committed).read_bytes():
        return  # the very file (this device, this driver)
    new, old = read_png(fresh), read_png(ROOT / committed)
    assert new.shape == old.shape
    # The same picture: on another device the weights may round differently in the last bit, which
    # can move a colour by a level or so, never the figure.
    far = (np.abs(new - old).max(axis=2) > 8).mean()
    assert far < 0.005, f"{far:.2%} of the pixels differ from {committed}"
