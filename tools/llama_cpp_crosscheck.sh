#!/usr/bin/env bash
# vkattn against llama.cpp itself (tests/llama_cpp_crosscheck.py: tokenization, greedy text and
# perplexity of random-weight llama, qwen2, qwen3, gemma2 and gemma3 models in five weight types).
# llama.cpp's tools are Debian sid's (llama.cpp-tools, llama.cpp-tools-extra), installed once into
# the sid root tools/mesa26_root.sh makes, and run chrooted there; vkattn runs from BUILD's Python
# module. Needs root (chroot).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: tools/llama_cpp_crosscheck.sh BUILD_DIR}
root=$(tools/mesa26_root.sh)
if [ ! -x "$root/usr/bin/llama-perplexity" ] || [ ! -x "$root/usr/bin/llama-completion" ]; then
  # The archive's Release files may be past their Valid-Until date on a mirror snapshot.
  apt=(apt-get -o Acquire::Check-Valid-Until=false -qq)
  chroot "$root" "${apt[@]}" update
  chroot "$root" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends \
    llama.cpp-tools llama.cpp-tools-extra > /dev/null
fi
PYTHONPATH=$build/python /usr/bin/python3 tests/llama_cpp_crosscheck.py "$root" "$build"
