#!/usr/bin/env bash
# vkattn against llama.cpp itself (tests/llama_cpp_crosscheck.py: tokenization, greedy text and
# perplexity of random-weight llama, qwen2, qwen3, gemma2 and gemma3 models in five weight types).
# llama.cpp's tools are Debian sid's, installed once into the sid root tools/drivers/mesa26_root.sh makes
# (tools/peers/llama_cpp_root.sh), and run chrooted there; vkattn runs from BUILD's Python module. Needs
# root (chroot).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: tools/peers/llama_cpp_crosscheck.sh BUILD_DIR}
root=$(tools/peers/llama_cpp_root.sh)
PYTHONPATH=$build/python /usr/bin/python3 tests/llama_cpp_crosscheck.py "$root" "$build"
