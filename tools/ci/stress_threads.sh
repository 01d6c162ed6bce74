#!/usr/bin/env bash
# The multi-threaded tests many times over, as CI runs them and harder: alone, and several copies
# at once, with the validation layer's synchronization checker on, core files written and every
# crash's backtrace printed. Not part of CI: it shows that a rare crash is gone.
#   tools/ci/stress_threads.sh BUILD_DIR [ROUNDS] [COPIES]
# ROUNDS (default 40) rounds of COPIES (default 3) concurrent runs of test_threads, each program
# with its own pipeline cache file as in CI's validation leg but one file shared by the copies
# (the case CI met). Exit status 1 if any run failed.
set -uo pipefail
build=$(realpath "${1:?usage: stress_threads.sh BUILD_DIR [ROUNDS] [COPIES]}")
rounds=${2:-40}
copies=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$build/stress-threads
rm -rf "$work" && mkdir -p "$work"
touch "$work/started"
ulimit -c unlimited 2> /dev/null || echo "stress_threads: core files stay off" >&2
sync=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
failed=0 runs=0
for ((round = 1; round <= rounds; ++round)); do
  rm -f "$work/pipeline-cache.bin"
  for ((copy = 1; copy <= copies; ++copy)); do
    (
      cd "$work" || exit 1
      VK_LAYER_ENABLES=$sync VKATTN_VALIDATION=1 VKATTN_PIPELINE_CACHE="$work/pipeline-cache.bin" \
        "$build/tests/test_threads" --gtest_brief=1 > "$work/run-$round-$copy.log" 2>&1
      echo $? > "$work/run-$round-$copy.rc"
    ) &
  done
  wait
  for ((copy = 1; copy <= copies; ++copy)); do
    runs=$((runs + 1))
    rc=$(cat "$work/run-$round-$copy.rc")
    if [ "$rc" != 0 ]; then
      failed=$((failed + 1))
      echo "round $round, copy $copy: exit status $rc" >&2
      cat "$work/run-$round-$copy.log" >&2
    fi
  done
done
[ "$failed" -eq 0 ] || "$here/crash_backtraces.sh" "$work" "$work/started"
echo "stress_threads: $runs runs of test_threads under synchronization validation, $failed failed"
[ "$failed" -eq 0 ]
