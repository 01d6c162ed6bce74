#!/usr/bin/env bash
# GPU compilers without a GPU: every GPU kernel `Auto` can choose, compiled by AMD's production
# shader compiler (ACO) through RADV's null device (Mesa 25 from bookworm-backports, unpacked by
# tools/drivers/mesa25_env.sh; Mesa 26 removed the null device), for RDNA3 (navi31: matrix units) and RDNA2
# (navi21); their statistics checked against shaders/compiler_budgets.json; then two planted
# changes that must fail the budgets (a larger matmul accumulator array that spills to scratch
# memory; single-buffered attention K/V tiles, whose stores wait for each load), so the check is
# known to bite. Nothing executes.
#   tools/drivers/gpu_compilers.sh BUILD_DIR [OUT_DIR]    (OUT_DIR: BUILD_DIR/gpu-compilers)
# Writes OUT_DIR/CHIP.json and .txt (the reports), OUT_DIR/statistics.md (the table) and prints the
# budget check; exit status 1 on a violation or when a planted change passes.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: tools/drivers/gpu_compilers.sh BUILD_DIR [OUT_DIR]}" && pwd)
out=${2:-$build/gpu-compilers}
mkdir -p "$out"
# Mesa 25 unpacked inside the build folder (MESA25_DIR overrides), nothing installed.
export MESA25_DIR=${MESA25_DIR:-$build/mesa25}
MESA25_DRIVER=radv source "$repo/tools/drivers/mesa25_env.sh" > "$out/mesa25.log" 2>&1
chips=(navi31 navi21)
# A compile-only device runs no probe, so the fragment attention kernel's accumulator layout is
# given: RDNA3's wave64 layout (the kernel's subgroup size on AMD) as RADV lowers cooperative
# matrices (radv_nir_lower_cooperative_matrix.c: lane l holds column l % 16 of rows l / 16 + 4 i),
# which test_fragment_layout reads through the same analysis as a probe's: lane bits 0..3 free, no
# element bit, P through shared memory (A's elements are replicated over the lanes).
layout_navi31=VKATTN_FRAGMENT_LAYOUT=15,0,1
layout_navi21=VKATTN_FRAGMENT_LAYOUT=

# The statistics of one chip, optionally under a planted setting: name, chip, environment...
compile() {
  local name="$1" chip="$2"
  shift 2
  local status=0
  env "$@" RADV_FORCE_FAMILY="$chip" AMD_FORCE_FAMILY="$chip" "$build/vkattn" devices --pipelines \
    --json "$out/$name.json" > "$out/$name.txt" 2>&1 || status=$?
  if [ "$status" != 0 ] || [ ! -s "$out/$name.json" ]; then
    echo "gpu_compilers: vkattn devices --pipelines failed on $chip (exit $status):" >&2
    tail -n 20 "$out/$name.txt" >&2
    exit 1
  fi
}

reports=()
for chip in "${chips[@]}"; do
  layout_var="layout_$chip"
  compile "$chip" "$chip" "${!layout_var}"
  reports+=("$chip=$out/$chip.json")
done
status=0
python3 "$repo/tools/drivers/check_compiler_budgets.py" "${reports[@]}" --markdown "$out/statistics.md" || status=1

# Planted changes: each must break a budget, or the check is blind to what it guards.
for plant in "VKATTN_MATMUL_TILE=8x16x1:Scratch size" "VKATTN_ATTENTION_TILE=2x32x1:Main loop full memory waits"; do
  setting=${plant%%:*}
  statistic=${plant#*:}
  compile planted navi31 "$layout_navi31" "$setting"
  if python3 "$repo/tools/drivers/check_compiler_budgets.py" "navi31=$out/planted.json" > "$out/planted-check.txt"; then
    echo "gpu_compilers: the planted change $setting passed the budgets" >&2
    status=1
  elif ! grep -q "$statistic" "$out/planted-check.txt"; then
    echo "gpu_compilers: the planted change $setting failed, but not on $statistic:" >&2
    cat "$out/planted-check.txt" >&2
    status=1
  else
    echo "planted $setting: caught ($(grep -c '^BUDGET' "$out/planted-check.txt") violation(s) of $statistic and others)"
  fi
done
exit "$status"
