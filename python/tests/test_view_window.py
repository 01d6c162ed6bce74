"""vkattn.view without out=: a window whose failure is a Python exception with the viewer's own
message, never a silent exit status. Without a display view() raises at once; a stand-in viewer
(a script) shows which flags the window gets and how a later failure surfaces; under Xvfb, when
it is installed, the real window opens and closes."""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest

import vkattn
from view_support import VIEWER, attention, needs_viewer, view_folders

XVFB_RUN = shutil.which("xvfb-run")
needs_xvfb = pytest.mark.skipif(not (VIEWER and XVFB_RUN), reason="needs VKATTN_VIEWER and xvfb-run")

STAND_IN = """\
#!{python}
# Records its arguments and the folder it was given, says "ready", then does what
# STAND_IN_MODE says: "fail" (two seconds later, so that view() has returned the window: exit 2
# with a message, as the viewer does for bad input), or stay open STAND_IN_SECONDS.
import json, os, sys, time
args = sys.argv[1:]
folder = args[args.index("--source") + 1][len("npy:"):]
with open(os.environ["STAND_IN_RECORD"], "w") as record:
    json.dump({{"args": args, "files": sorted(os.listdir(folder))}}, record)
print("ready", flush=True)
if os.environ.get("STAND_IN_MODE") == "fail":
    time.sleep(2)
    sys.stderr.write("vkattn-viewer: invalid argument '--layer': layer 9 is out of range\\n")
    sys.exit(2)
time.sleep(float(os.environ.get("STAND_IN_SECONDS", "0")))
"""


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    """A stand-in viewer, its record file, and tempfile pointed at tmp_path to count folders."""
    script = tmp_path / "stand_in_viewer"
    script.write_text(STAND_IN.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    record = tmp_path / "record.json"
    monkeypatch.setenv("STAND_IN_RECORD", str(record))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return script, record


CHOICES = dict(layer=1, head=2, reduce="mean", colormap="magma", log=True, stretch=True, title="T", size=(800, 600))
CHOICE_FLAGS = ["--size", "800x600", "--title", "T", "--layer", "1", "--head", "2", "--reduce", "mean",
                "--colormap", "magma", "--log", "--stretch"]


def test_the_window_gets_the_choices_out_gets(tmp_path, rng, stand_in, monkeypatch):
    script, record = stand_in
    maps = rng.random((2, 3, 4, 5)).astype(np.float32)
    rows, cols = list("abcd"), list("vwxyz")
    window = vkattn.view(maps, rows, cols, viewer=script, **CHOICES)
    assert isinstance(window, vkattn.ViewerWindow) and window.shown
    assert window.wait(timeout=60) == 0
    seen = json.loads(record.read_text())
    assert seen["files"] == ["attention.npy", "col_tokens.txt", "row_tokens.txt", "viewer.log"]
    window_args = seen["args"]
    assert window_args[2:] == CHOICE_FLAGS + ["--print-ready"]
    assert view_folders(tmp_path) == [], "the folder goes when the window closes"

    png = tmp_path / "f.png"
    vkattn.view(maps, rows, cols, out=png, viewer=script, **CHOICES)
    out_args = json.loads(record.read_text())["args"]
    assert out_args[2:] == CHOICE_FLAGS + ["--export", str(png)]
    assert view_folders(tmp_path) == []


def test_a_window_that_fails_later_raises_from_wait_and_poll(tmp_path, rng, stand_in, monkeypatch):
    script, _ = stand_in
    monkeypatch.setenv("STAND_IN_MODE", "fail")
    window = vkattn.view(attention(rng, 3, 3), ["a", "b", "c"], viewer=script)
    message = "vkattn-viewer failed \\(exit status 2\\): invalid argument '--layer': layer 9 is out of range$"
    with pytest.raises(ValueError, match=message):
        window.wait(timeout=60)
    with pytest.raises(ValueError, match=message):
        window.poll()
    assert view_folders(tmp_path) == []


def test_close_ends_an_open_window_without_an_error(tmp_path, rng, stand_in, monkeypatch):
    script, _ = stand_in
    monkeypatch.setenv("STAND_IN_SECONDS", "300")
    window = vkattn.view(attention(rng, 3, 3), ["a", "b", "c"], viewer=script)
    assert window.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        window.wait(timeout=0.2)
    window.close()
    assert window.returncode is not None and window.returncode != 0
    assert window.poll() == window.returncode, "ended by close(): no failure"
    assert view_folders(tmp_path) == []


@needs_viewer
def test_without_a_display_view_raises_the_viewers_message(tmp_path, rng, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for display in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(display, raising=False)
    with pytest.raises(RuntimeError) as failure:
        vkattn.view(attention(rng, 3, 3), ["a", "b", "c"], head=0)
    message = str(failure.value)
    assert message.startswith("vkattn-viewer failed (exit status 1): cannot open a window:"), message
    assert "DISPLAY" in message, "GLFW's own reason"
    assert "out='figure.png'" in message, "and the way to a figure without a display"
    assert "vkattn-viewer: " not in message, "the viewer's prefix is not repeated"
    assert view_folders(tmp_path) == []


@needs_xvfb
def test_under_xvfb_the_window_opens_with_the_choices_and_closes(tmp_path):
    script = textwrap.dedent("""
        import numpy as np, vkattn
        maps = np.random.default_rng(3).random((2, 4, 6, 6)).astype(np.float32)
        window = vkattn.view(maps, list("abcdef"), layer=1, head=3, colormap="magma", size=(900, 600))
        assert window.shown and window.poll() is None, window
        window.close()
        print("closed", window.returncode)
    """)
    run = subprocess.run([XVFB_RUN, "-a", "-s", "-screen 0 1280x800x24", sys.executable, "-c", script],
                         capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("closed"), run.stdout


@needs_xvfb
def test_under_xvfb_a_source_error_names_its_argument_once(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    run = subprocess.run([XVFB_RUN, "-a", "-s", "-screen 0 1280x800x24", VIEWER, "--source", f"npy:{empty}"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2, run.stderr
    assert f"vkattn-viewer: invalid argument '--source': folder {empty} holds neither" in run.stderr, run.stderr
    assert run.stderr.count("invalid argument") == 1, run.stderr
