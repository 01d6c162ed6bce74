#!/usr/bin/env bash
# Packs llama.cpp's llama-bench from the Debian sid root (tools/peers/llama_cpp_root.sh) into a tarball
# that runs on a machine without sid's glibc (Debian 12, a GPU machine): the binary, the libraries
# ldd names, ggml's Vulkan backend and its CPU backends, and sid's own loader, with a `run`
# script: `DIR/run llama-bench ARGS` (GGML_BACKEND_PATH loads the Vulkan backend; the loader's
# folder is where ggml looks for the CPU ones). Needs root (chroot) the first time the tools are
# installed. Usage: tools/peers/llama_cpp_bundle.sh OUT.tar.gz
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: tools/peers/llama_cpp_bundle.sh OUT.tar.gz}
root=$(tools/peers/llama_cpp_root.sh)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
bundle=$stage/llama-cpp
mkdir -p "$bundle/bin" "$bundle/lib"
cp "$root/usr/bin/llama-bench" "$bundle/bin/"
backends=/usr/lib/x86_64-linux-gnu/ggml/backends0
for file in /usr/bin/llama-bench "$backends/libggml-vulkan.so"; do
  chroot "$root" ldd "$file" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
done | sort -u | while read -r lib; do cp -L "$root$lib" "$bundle/lib/"; done
cp -L "$root/lib64/ld-linux-x86-64.so.2" "$bundle/lib/"
cp "$root$backends"/libggml-*.so "$bundle/lib/"
cat > "$bundle/run" <<'RUN'
#!/bin/sh
# DIR/run TOOL ARGS: one of bin/'s tools through the bundle's own loader and libraries.
here=$(cd "$(dirname "$0")" && pwd)
tool=$1
shift
GGML_BACKEND_PATH="$here/lib/libggml-vulkan.so" exec "$here/lib/ld-linux-x86-64.so.2" --library-path "$here/lib" \
  "$here/bin/$tool" "$@"
RUN
chmod +x "$bundle/run"
tar -C "$stage" -czf "$out" llama-cpp
echo "$out: $(du -h "$out" | cut -f1) ($(ls "$bundle/lib" | wc -l) libraries)"
