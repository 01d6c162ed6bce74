"""One way for the cross-check scripts to run under a Python with pinned PyPI packages.

ensure(script, pins, venv) returns when the running interpreter already has every pinned version
(and NumPy); otherwise it creates `venv` (one that sees the system's NumPy), installs the pins from
PyPI into it, and re-runs the calling script there. When PyPI cannot be reached it exits 77
(ctest's skip), except under CI=true, where that is a failure.
"""
import os
import subprocess
import sys
from pathlib import Path

SKIP = 77
# gguf-py, llama.cpp's own GGUF package: raise the pin on purpose, so results do not move by themselves.
GGUF_VERSION = "0.19.0"
_RERUN = "VKATTN_PINNED_VENV"


def ensure(script: str, pins: dict, venv: Path) -> None:
    check = "import numpy, importlib.metadata as m; " + "; ".join(
        f"assert m.version('{name}') == '{version}'" for name, version in pins.items())
    if subprocess.run([sys.executable, "-c", check], capture_output=True).returncode == 0:
        return
    name = Path(script).stem
    if os.environ.get(_RERUN):
        sys.exit(f"{name}: the venv's python still lacks one of {pins} or numpy")
    python = venv / "bin" / "python"
    ready = python.exists() and subprocess.run([python, "-c", check], capture_output=True).returncode == 0
    if not ready:
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
        install = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                  *(f"{n}=={v}" for n, v in pins.items())], capture_output=True, text=True)
        if install.returncode != 0:
            message = f"{name}: could not install {pins} from PyPI:\n" + install.stderr[-2000:]
            if os.environ.get("CI", "").lower() == "true":
                sys.exit(message)
            print(message + "\nSKIPPED: PyPI unreachable")
            sys.exit(SKIP)
    os.environ[_RERUN] = "1"
    os.execv(python, [str(python), script, *sys.argv[1:]])
