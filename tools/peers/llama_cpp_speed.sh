#!/usr/bin/env bash
# Prompt and decode tokens/s of vkattn beside llama.cpp's Vulkan backend on the same driver (Mesa
# 26's lavapipe in the Debian sid root) and beside llama.cpp's CPU backend: tools/peers/llama_cpp_speed.py.
# A benchmark, not a test: run it by hand (about ten minutes on two cores). Needs root (chroot).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: tools/peers/llama_cpp_speed.sh BUILD_DIR}
root=$(tools/peers/llama_cpp_root.sh)
PYTHONPATH=$build/python /usr/bin/python3 tools/peers/llama_cpp_speed.py "$root" "$build"
