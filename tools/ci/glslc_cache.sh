#!/usr/bin/env bash
# glslc through a cache, as ccache is for the C++ compiler: CI configures several build trees from
# one checkout (the main build, the minimal install, pip's, the sanitizers'), and each would compile
# every SPIR-V module again. CMake runs it as the shader compiler's launcher
# (VKATTN_GLSLC_LAUNCHER, cmake/VkattnShaders.cmake):
#   glslc_cache.sh GLSLC ARGUMENTS...
# The key is the compiler's version, its arguments but for the names of the files it writes, and
# the preprocessed source (every include and define resolved): a hit copies the module and writes
# the dependency file Ninja expects; a miss compiles and stores both. The cache lives in
# VKATTN_GLSLC_CACHE_DIR (default ~/.cache/vkattn-glslc).
set -euo pipefail
glslc=${1:?usage: glslc_cache.sh GLSLC ARGUMENTS...}
shift
cache=${VKATTN_GLSLC_CACHE_DIR:-$HOME/.cache/vkattn-glslc}
args=("$@")
out="" depfile="" target="" keyed=()
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    -o) out=${args[i + 1]}; i=$((i + 1)) ;;
    -MF) depfile=${args[i + 1]}; i=$((i + 1)) ;;
    -MT) target=${args[i + 1]}; i=$((i + 1)) ;;
    -MD) ;;
    *) keyed+=("${args[i]}") ;;
  esac
done
# Without an output file or with a dependency file but no target, this is not a compile the cache
# understands: run glslc as asked.
if [ -z "$out" ] || { [ -n "$depfile" ] && [ -z "$target" ]; }; then exec "$glslc" "$@"; fi
# Preprocessing takes the arguments but for the output format (-mfmt), which it refuses.
preprocess=()
for a in "${keyed[@]}"; do [[ $a == -mfmt=* ]] || preprocess+=("$a"); done
preprocessed=$("$glslc" "${preprocess[@]}" -E) || exec "$glslc" "$@"
key=$({ "$glslc" --version; printf '%s\n' "${keyed[@]}"; printf '%s' "$preprocessed"; } | sha256sum | cut -d' ' -f1)
entry=$cache/${key:0:2}/$key
if [ -f "$entry.spv" ] && [ -f "$entry.deps" ]; then
  cp "$entry.spv" "$out"
  [ -z "$depfile" ] || printf '%s:%s\n' "$target" "$(cat "$entry.deps")" > "$depfile"
  exit 0
fi
"$glslc" "$@"
mkdir -p "${entry%/*}"
# Written under a temporary name and renamed, so that two trees compiling at once never read half
# an entry.
tmp=$(mktemp "$entry.XXXXXX")
if [ -n "$depfile" ]; then
  # The dependencies after "TARGET:", the continuation lines joined.
  sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$depfile" | sed -e 's/^[^:]*://' > "$tmp"
else
  : > "$tmp"
fi
mv "$tmp" "$entry.deps"
tmp=$(mktemp "$entry.XXXXXX")
cp "$out" "$tmp"
mv "$tmp" "$entry.spv"
