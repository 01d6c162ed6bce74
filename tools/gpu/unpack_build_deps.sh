#!/usr/bin/env bash
# Unpacks what building vkattn needs beyond a compiler, CMake and Ninja — the Vulkan loader and its
# headers, glslc, spirv-val, GoogleTest, Google Benchmark and nlohmann/json — from
# Debian 12's packages into DIR, without installing anything: for a machine where only a GPU
# driver is present (no Vulkan headers, no libvulkan.so) and nothing can be fetched, such as a
# lent GPU machine. Run it where apt works, carry DIR, and point tools/gpu/qualify_gpu.sh at it with
# VKATTN_VULKAN_PREFIX=DIR (which also prints what it takes from there). Debian 12's validation
# layer is left out: it predates the cooperative-matrix extensions (qualify_gpu.sh says which layer
# it uses, if any).
#   tools/gpu/unpack_build_deps.sh DIR
set -euo pipefail
dir=${1:?usage: tools/gpu/unpack_build_deps.sh DIR}
packages=(libvulkan1 libvulkan-dev glslc libshaderc1 spirv-tools
          libgtest-dev libgmock-dev libbenchmark-dev libbenchmark1debian nlohmann-json3-dev)
mkdir -p "$dir/debs"
dir=$(cd "$dir" && pwd)
chmod 777 "$dir/debs"  # apt's download user writes there
(cd "$dir/debs" && apt-get download "${packages[@]}" > /dev/null 2>&1) ||
  { echo "unpack_build_deps: apt-get download ${packages[*]} failed" >&2; exit 1; }
for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir"; done
rm -rf "$dir/debs"
# What the build does not use: SPIRV-Tools' static libraries and tools other than spirv-val, and
# the documentation (the folder then fits a small transfer).
rm -rf "$dir"/usr/lib/*/libSPIRV-Tools*.a "$dir"/usr/share/doc "$dir"/usr/share/man
find "$dir/usr/bin" -name 'spirv-*' ! -name spirv-val -delete
echo "unpack_build_deps: ${#packages[@]} Debian packages unpacked into $dir"
