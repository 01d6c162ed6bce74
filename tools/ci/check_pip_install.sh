#!/usr/bin/env bash
# `pip install .` as a Python user does it: a virtual environment under BUILD_DIR that sees
# Debian's NumPy (--system-site-packages), the repository installed into it through scikit-build-core
# (pyproject.toml; its CMake build folder under BUILD_DIR, so a second run only rebuilds what
# changed), then, from a folder outside the source tree, one attention call on the default Vulkan
# device checked against NumPy in float64; then the README's Python example, view(out=...)
# included, through the viewer the wheel installs. CMAKE_BUILD_PARALLEL_LEVEL sets the build's jobs.
#   tools/ci/check_pip_install.sh BUILD_DIR
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "${1:?usage: tools/ci/check_pip_install.sh BUILD_DIR}"
build=$(cd "$1" && pwd)

[ -x "$build/venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$build/venv"
"$build/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  --config-settings=build-dir="$build/cmake" "$source_dir"

# Run where no vkattn module or source folder could be picked up by accident.
# The folder is named once: the exit trap removes that folder, wherever the script is by then.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
"$build/venv/bin/python" - "$build" <<'PY'
import sys

import numpy as np

import vkattn

venv = sys.argv[1] + "/venv"
assert vkattn.__file__.startswith(venv), f"vkattn imported from {vkattn.__file__}, not from {venv}"

rng = np.random.default_rng(7)
q = rng.standard_normal((1, 3, 17, 40)).astype(np.float32)
k = rng.standard_normal((1, 3, 23, 40)).astype(np.float32)
v = rng.standard_normal((1, 3, 23, 24)).astype(np.float32)
out = vkattn.scaled_dot_product_attention(q, k, v, is_causal=True)

q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
s = q64 @ np.swapaxes(k64, -1, -2) / np.sqrt(q.shape[-1])
s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)  # is_causal: query i sees keys j <= i
p = np.exp(s - s.max(-1, keepdims=True))
ref = (p / p.sum(-1, keepdims=True)) @ v64
err = np.abs(out - ref).max()
assert out.shape == ref.shape and err < 2e-5, f"max abs error {err:.3g} against float64 NumPy"
print(f"pip install: vkattn from {vkattn.__file__}, causal attention on {vkattn.current_device()}: "
      f"max abs error {err:.2e}")
PY

# The README's Python example as written (its model path is the repository's), from the installed
# module, its picture drawn by the viewer the wheel installed beside the interpreter.
cd "$source_dir"
"$build/venv/bin/python" - "$build" "$scratch" <<'PY'
import os
import re
import sys

import vkattn

venv, scratch = sys.argv[1] + "/venv", sys.argv[2]
assert vkattn.__file__.startswith(venv), f"vkattn imported from {vkattn.__file__}, not from {venv}"
assert "VKATTN_VIEWER" not in os.environ
readme = open("README.md", encoding="utf-8").read()
block = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "vkattn.Model(" in b)
picture = os.path.join(scratch, "attention.png")
code = re.sub(r'out="[^"]+\.png"', f"out={picture!r}", block)
assert code != block, "the README's example writes no PNG"
exec(compile(code, "README.md", "exec"), {})
with open(picture, "rb") as f:
    assert f.read(8) == b"\x89PNG\r\n\x1a\n", picture
print(f"pip install: the README's example ran, its picture drawn by {os.path.dirname(sys.executable)}/vkattn-viewer "
      f"({os.path.getsize(picture)} bytes)")
PY
