#!/usr/bin/env bash
# Compiles the prebuilt SPIR-V modules (shaders/prebuilt/<id>.spv.inc, the ones vkattn_shader marks
# PREBUILT: Debian 12's glslc predates GL_KHR_cooperative_matrix) with Debian sid's glslc in the root
# that tools/drivers/mesa26_root.sh builds, with the build's own flags; validates each with sid's spirv-val;
# and records the sha256 of every file they were compiled from in shaders/prebuilt/sources.sha256,
# which the prebuilt_spirv_sources test compares with the sources.
#   tools/drivers/prebuilt_spirv.sh BUILD_DIR            rewrite shaders/prebuilt/
#   tools/drivers/prebuilt_spirv.sh BUILD_DIR --check    compile into a temporary folder; exit 1 unless the
#                                                checked-in files are the same, byte for byte
# BUILD_DIR is a configured build (its prebuilt_spirv_modules.txt lists id, source, target
# environment and defines).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: tools/drivers/prebuilt_spirv.sh BUILD_DIR [--check]}
mode=${2:-write}
list="$build/prebuilt_spirv_modules.txt"
[ -f "$list" ] || { echo "prebuilt_spirv.sh: $list is missing (configure $build first)" >&2; exit 1; }
root=$("$repo/tools/drivers/mesa26_root.sh")

# The shader folder (and the block layouts' header it shares with C++) is copied into the root,
# compiled there and the results copied back.
work=$root/tmp/vkattn-prebuilt
rm -rf --one-file-system "$work"
mkdir -p "$work/out"
cp -r "$repo/shaders" "$work/shaders"
mkdir -p "$work/base/include/vkattn/core"
cp "$repo/base/include/vkattn/core/block_layouts.h" "$work/base/include/vkattn/core/"
cp "$list" "$work/modules.txt"
chroot "$root" /bin/bash -euo pipefail -c '
  cd /tmp/vkattn-prebuilt
  while read -r id src env defines; do
    [ -n "$id" ] || continue
    defs=()
    for d in $defines; do defs+=("-D$d"); done
    flags=(--target-env="$env" -O -fshader-stage=compute -I shaders/include -I base/include/vkattn/core "${defs[@]}")
    glslc "${flags[@]}" -mfmt=num -MD -MF "out/$id.d" -MT "$id" -o "out/$id.spv.inc" "$src"
    glslc "${flags[@]}" -o "out/$id.spv" "$src"
    spirv-val --target-env "$env" "out/$id.spv"
  done < modules.txt
  echo "$(glslc --version | head -n1) ($(glslc --version | grep glslang))" > out/compiler.txt
'
# Every file a module was compiled from (sources and includes), relative to the repository root.
sources=$(cd "$work" && sed -e 's/^[^:]*://' -e 's/\\$//' out/*.d | tr ' ' '\n' | grep -v '^$' | sort -u)
out=$work/out/final
mkdir -p "$out"
for f in "$work"/out/*.spv.inc; do cp "$f" "$out/"; done
{
  echo "# $(cat "$work/out/compiler.txt"); written by tools/drivers/prebuilt_spirv.sh"
  for s in $sources; do (cd "$repo" && sha256sum "$s"); done
} > "$out/sources.sha256"

if [ "$mode" = "--check" ]; then
  if diff -r "$out" "$repo/shaders/prebuilt" > /dev/null; then
    echo "prebuilt_spirv.sh: shaders/prebuilt matches a fresh compile ($(ls "$out" | wc -l) files)"
  else
    diff -rq "$out" "$repo/shaders/prebuilt" >&2 || true
    echo "prebuilt_spirv.sh: shaders/prebuilt differs from a fresh compile; run tools/drivers/prebuilt_spirv.sh" >&2
    exit 1
  fi
else
  rm -rf "$repo/shaders/prebuilt"
  cp -r "$out" "$repo/shaders/prebuilt"
  echo "prebuilt_spirv.sh: wrote $(ls "$out" | wc -l) files to shaders/prebuilt"
fi
rm -rf --one-file-system "$work"
