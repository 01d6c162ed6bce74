#!/usr/bin/env bash
# Runs every libFuzzer target of a VKATTN_FUZZ build for a bounded time each, starting from its
# committed seed corpus (copied, so the checkout stays clean). Exits non-zero on the first
# finding and names the input that caused it: add that input to fuzz/regressions/<target>/.
# FUZZ_JOBS targets run at a time (default: the cores).
# usage: fuzz/run_fuzzers.sh BUILD_DIR [SECONDS_PER_TARGET]
set -euo pipefail
build=$(realpath "$1")
seconds=${2:-30}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=${FUZZ_JOBS:-$(nproc)}
targets=(npy safetensors safetensors_header gguf arguments)
run_target() {
  local target=$1 rc=0
  (cd "$work" && "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
     -rss_limit_mb=2048 -print_final_stats=1 "$work/$target" > "$work/$target.log" 2>&1) || rc=$?
  echo "$rc" > "$work/$target.rc"
}
for target in "${targets[@]}"; do  # FUZZ_JOBS targets at a time (default: the cores)
  mkdir -p "$work/$target"
  find "$here/corpus/$target" "$here/regressions/$target" -maxdepth 1 -type f -exec cp {} "$work/$target/" \; 2>/dev/null || true
  echo "fuzz_$target: ${seconds} s"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_target "$target" &
done
wait
for target in "${targets[@]}"; do
  if [ "$(cat "$work/$target.rc")" != 0 ]; then
    tail -n 60 "$work/$target.log"
    mkdir -p "$build/fuzz-findings"
    cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* "$build/fuzz-findings/" 2>/dev/null || true
    echo "fuzz_$target found a problem; its input is in $build/fuzz-findings/" >&2
    exit 1
  fi
  echo "fuzz_$target:"
  grep -E "^stat::number_of_executed_units|^Done" "$work/$target.log" || true
done
