#!/usr/bin/env bash
# The C++ sources (*.cpp, *.hpp tracked by git) against the repository's .clang-format, with
# Debian 12's clang-format 14 (other versions format some constructs differently). Exit 1 naming
# each file that differs; --fix rewrites them instead. The GLSL-shared headers (*.h under
# shaders/) are left as they are.
#   tools/ci/check_format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/../.."
format=${CLANG_FORMAT:-clang-format-14}
command -v "$format" > /dev/null || { echo "check_format: $format not found (Debian package clang-format-14)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
if [ "${1:-}" = "--fix" ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
differ=()
for f in "${files[@]}"; do
  "$format" --dry-run -Werror "$f" > /dev/null 2>&1 || differ+=("$f")
done
if [ ${#differ[@]} -gt 0 ]; then
  printf 'not formatted: %s\n' "${differ[@]}" >&2
  echo "check_format: ${#differ[@]} of ${#files[@]} files differ from .clang-format; tools/ci/check_format.sh --fix formats them" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
