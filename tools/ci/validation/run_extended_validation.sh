#!/usr/bin/env bash
# The validation layer's two optional checkers over an existing build:
#   tools/ci/validation/run_extended_validation.sh BUILD_DIR [sync|gpu-assisted|both] [GTEST_FILTER]
# Synchronization validation looks for missing barriers between dispatches and copies (hazards
# such as read-after-write without a barrier); GPU-assisted validation instruments every shader
# with bounds checks on descriptor accesses. Both are enabled through VK_LAYER_ENABLES and run the
# tests below with VKATTN_VALIDATION=1, so any message fails the test as usual. The instrumented
# pipelines are slow to build on lavapipe and do not match the normal pipeline cache, hence a
# separate cache file per checker and a gtest filter that keeps the attention cases to a
# representative set (default: the rows, tiled, coopmat-emulated, split-K and decode cases). The
# programs run VALIDATION_JOBS at a time (default: the cores).
set -euo pipefail
build=${1:?usage: run_extended_validation.sh BUILD_DIR [sync|gpu-assisted|both] [GTEST_FILTER]}
which=${2:-both}
filter=${3:-'*Decode*:*KeySplits*:*HeadDimSplit*:Kernels/Attention.DkDiffersFromDv/*:Kernels/Attention.GroupedQueryHeads/*'}
programs=(test_runtime test_softmax test_norms test_rope test_elementwise test_faults test_threads test_linear)

jobs=${VALIDATION_JOBS:-$(nproc)}
# The driver settings ctest gives the kernel tests (CMakeLists.txt: VKATTN_KERNEL_TEST_DRIVER_ENV,
# lavapipe's LLVM passes off), so that Mesa's shader cache from the test run serves these runs too:
# Mesa keys its cache by those settings, and the synchronization checker changes no shader.
driver_env=()
setting=$(sed -n 's/^VKATTN_KERNEL_TEST_DRIVER_ENV:STRING=//p' "$build/CMakeCache.txt")
IFS=';' read -r -a driver_env <<< "$setting"

run_with() {  # name, VK_LAYER_ENABLES value: the programs $jobs at a time, each one's output after it
  local name=$1 enables=$2 failed=0
  local logs=$build/$name-validation
  echo "== $name validation"
  rm -rf "$logs" && mkdir -p "$logs"
  for program in "${programs[@]}" test_attention; do
    # test_linear without its exhaustive-tier cases (the 4.2M-row grids, the emulated kernel's
    # shape list): the same dispatch and barrier code as its quick cases.
    local only=()
    [ "$program" = test_linear ] && only=("--gtest_filter=-*GridsPastTheDispatchLimit*:*FragmentMatmul*emulated__*")
    [ "$program" = test_attention ] && only=("--gtest_filter=$filter")
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    (
      rc=0
      env "${driver_env[@]}" VK_LAYER_ENABLES=$enables VKATTN_VALIDATION=1 VKATTN_PIPELINE_CACHE="$build/$name-pipeline-cache.bin" \
        "$build/tests/$program" --gtest_brief=1 "${only[@]}" > "$logs/$program.log" 2>&1 || rc=$?
      echo "$rc" > "$logs/$program.rc"
    ) &
  done
  wait
  for program in "${programs[@]}" test_attention; do
    cat "$logs/$program.log"
    [ "$(cat "$logs/$program.rc")" = 0 ] || { echo "== $program failed under $name validation"; failed=1; }
  done
  return $failed
}

status=0
sync=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
gpu=VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_EXT
case $which in
  sync) run_with sync $sync || status=1 ;;
  gpu-assisted) run_with gpu-assisted $gpu || status=1 ;;
  both)
    run_with sync $sync || status=1
    run_with gpu-assisted $gpu || status=1
    ;;
  *) echo "unknown checker '$which' (sync, gpu-assisted or both)" >&2; exit 2 ;;
esac
exit $status
