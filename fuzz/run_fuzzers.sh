#!/usr/bin/env bash
# Runs every libFuzzer target of a VKATTN_FUZZ build for a bounded time each, starting from its
# committed seed corpus (copied, so the checkout stays clean). Exits non-zero on the first
# finding and names the input that caused it: add that input to fuzz/regressions/<target>/.
# usage: fuzz/run_fuzzers.sh BUILD_DIR [SECONDS_PER_TARGET]
set -euo pipefail
build=$(realpath "$1")
seconds=${2:-30}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in npy safetensors safetensors_header gguf arguments; do
  mkdir -p "$work/$target"
  find "$here/corpus/$target" "$here/regressions/$target" -maxdepth 1 -type f -exec cp {} "$work/$target/" \; 2>/dev/null || true
  echo "fuzz_$target: ${seconds} s"
  if ! (cd "$work" && "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
          -rss_limit_mb=2048 -print_final_stats=1 "$work/$target" > "$work/$target.log" 2>&1); then
    tail -n 60 "$work/$target.log"
    mkdir -p "$build/fuzz-findings"
    cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* "$build/fuzz-findings/" 2>/dev/null || true
    echo "fuzz_$target found a problem; its input is in $build/fuzz-findings/" >&2
    exit 1
  fi
  grep -E "^stat::number_of_executed_units|^Done" "$work/$target.log" || true
done
