#!/usr/bin/env bash
# Prints the Debian sid root of tools/drivers/mesa26_root.sh with llama.cpp's tools installed in it
# (llama.cpp-tools, llama.cpp-tools-extra and the Vulkan backend, libggml0-backend-vulkan),
# installing them on first use. Needs root (chroot).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(tools/drivers/mesa26_root.sh)
if [ ! -x "$root/usr/bin/llama-perplexity" ] || [ ! -x "$root/usr/bin/llama-bench" ] ||
  [ ! -e "$root/usr/lib/x86_64-linux-gnu/ggml/backends0/libggml-vulkan.so" ]; then
  # The archive's Release files may be past their Valid-Until date on a mirror snapshot.
  apt=(apt-get -o Acquire::Check-Valid-Until=false -qq)
  chroot "$root" "${apt[@]}" update >&2
  chroot "$root" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends \
    llama.cpp-tools llama.cpp-tools-extra libggml0-backend-vulkan > /dev/null
fi
echo "$root"
