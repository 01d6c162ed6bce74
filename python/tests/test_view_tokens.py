"""Token labels: any Python str is taken, lone surrogates (bytes that surrogateescape kept) are
written as visible escapes; a token file that is not UTF-8 is read with the same escapes and said
to be so in the source's warning, not turned into '?'."""
import json
import os
import subprocess

import numpy as np
import pytest

import vkattn
from view_support import VIEWER, attention, needs_viewer


def test_surrogates_are_written_as_visible_escapes(tmp_path, rng):
    rows = [os.fsdecode(b"caf\xe9"), "\udcff", "a\ud800b", "naïve", "日本"]
    assert rows[0] == "caf\udce9"  # what a filename or a byte-level tokenizer gives back
    vkattn.save_attention(tmp_path / "maps", attention(rng, 5, 5), rows)
    written = (tmp_path / "maps" / "row_tokens.txt").read_bytes().decode("utf-8")  # valid UTF-8
    assert written.splitlines() == ["caf\\xe9", "\\xff", "a\\ud800b", "naïve", "日本"]


def test_line_breaks_are_written_as_a_visible_mark(tmp_path, rng):
    # A model writes "\n" and "\r\n" tokens; the folder keeps one token per line and shows them.
    vkattn.save_attention(tmp_path, attention(rng, 3, 3), ["a", "b\nc", "\r\n"])
    written = (tmp_path / "row_tokens.txt").read_text(encoding="utf-8")
    assert written.splitlines() == ["a", "b\u21b5c", "\u21b5"]


@needs_viewer
def test_the_viewer_labels_surrogate_tokens_with_their_escapes(tmp_path, rng):
    layout = tmp_path / "t.json"
    rows = ["caf\udce9", "\udcff", "x"]
    vkattn.view(attention(rng, 3, 3), rows, out=tmp_path / "t.png", layout=layout, size=(480, 360))
    record = json.loads(layout.read_text())
    assert record["rowTokens"] == ["caf\\xe9", "\\xff", "x"]
    assert record["colTokens"] == record["rowTokens"]
    assert record["warning"] == ""


@needs_viewer
@pytest.mark.parametrize("image_flag", ["--export", "--screenshot"])
def test_a_token_file_that_is_not_utf8_is_shown_escaped_and_named(tmp_path, rng, image_flag):
    folder = tmp_path / "maps"
    folder.mkdir()
    np.save(folder / "attention.npy", attention(rng, 4, 4))
    (folder / "tokens.txt").write_bytes("le\ncaf\u00e9\nna\u00efve\n.\n".encode("latin-1"))
    layout = tmp_path / "t.json"
    run = subprocess.run([VIEWER, "--source", f"npy:{folder}", image_flag, str(tmp_path / "t.png"),
                          "--layout", str(layout), "--size", "800x500"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    record = json.loads(layout.read_text())
    assert record["rowTokens"] == ["le", "caf\\xe9", "na\\xefve", "."]
    assert record["colTokens"] == record["rowTokens"]
    assert record["warning"] == (f'{folder / "tokens.txt"} is not UTF-8: line 2 ("caf\\xe9") and 1 more shown with '
                                 "\\xNN for each byte that is not")
