#!/usr/bin/env bash
# Runs BUILD_DIR's programs (a Debian 12 build) on Mesa 26's lavapipe, which executes
# VK_KHR_cooperative_matrix (8x8x8) on the CPU: inside the Debian sid root of tools/drivers/mesa26_root.sh,
# with the repository bind-mounted at its own path, the Khronos validation layer of the same
# vintage, and pipeline and shader caches of this driver's own.
#   tools/drivers/run_on_mesa26.sh BUILD_DIR               the cooperative-matrix leg (below)
#   tools/drivers/run_on_mesa26.sh BUILD_DIR COMMAND...    any command, e.g. $PWD/BUILD_DIR/vkattn devices
# The leg: the device list; sid's spirv-val over every embedded module; shaders/prebuilt against a
# fresh compile (tools/drivers/prebuilt_spirv.sh --check); then `vkattn conformance --validation` over the
# cooperative-matrix cases, which must execute (not skip) at least 20 cases each of attention and
# matmul on VK_KHR_cooperative_matrix and of attention on VK_NV_cooperative_matrix2 (conformance
# rows attention_coopmat, linear_coopmat and attention_coopmat2), all passing; two
# cooperative-matrix-2 cases with larger tiles forced (VKATTN_ATTENTION_TILE); a KHR attention case
# with 64-key tiles; the matmul cases
# at a tile that holds the next slice in registers (VKATTN_MATMUL_TILE); and the reproducer of
# cooperative-matrix-2 row reductions (tools/drivers/coopmat2_row_reduce.cpp).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: run_on_mesa26.sh BUILD_DIR [COMMAND...]}" && pwd)
shift
root=$("$repo/tools/drivers/mesa26_root.sh")

mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2> /dev/null || true; done
}
trap cleanup EXIT
bind() {  # bind SOURCE at the same path inside the root
  mkdir -p "$root$1"
  mount --bind "$1" "$root$1"
  mounted+=("$root$1")
}
bind /proc
bind /sys
bind /dev
bind "$repo"
[[ "$build" == "$repo"/* ]] || bind "$build"

# A clean environment inside the root, but for this script's caches and the caller's VKATTN_*
# settings (variant overrides, VKATTN_COOPMAT, ...); validation is on unless VKATTN_VALIDATION says.
in_root() {
  local vkattn_vars=()
  while IFS= read -r var; do vkattn_vars+=("$var"); done < <(env | grep '^VKATTN_' | grep -v '^VKATTN_PIPELINE_CACHE' || true)
  chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root \
    MESA_SHADER_CACHE_DIR=/var/cache/vkattn-mesa26-shader-cache VKATTN_VALIDATION=1 "${vkattn_vars[@]}" \
    VKATTN_PIPELINE_CACHE="${VKATTN_PIPELINE_CACHE_FILE:-/var/cache/vkattn-mesa26-pipelines.bin}" "$@"
}

if [ "$#" -gt 0 ]; then
  in_root "$@"
  exit $?
fi

start=$(date +%s)
in_root "$build/vkattn" devices
# Every embedded module through the validator that knows SPV_KHR_cooperative_matrix.
dump=$build/spirv-mesa26
rm -rf "$dump"
"$build/tools/vkattn_dump_spirv" "$dump" > /dev/null
count=0
for m in "$dump"/*.spv; do
  in_root spirv-val --target-env vulkan1.3 "$m" || { echo "spirv-val (Debian sid) rejected $m" >&2; exit 1; }
  count=$((count + 1))
done
echo "spirv-val $(in_root spirv-val --version | head -n1): $count modules valid"
"$repo/tools/drivers/prebuilt_spirv.sh" "$build" --check

# The conformance runs, each a process of its own with its own pipeline cache file, as many at once
# as there are cores, the longest first: cold, nearly all of the leg is LLVM 22 building kernel
# variants, one process a core. A job is NAME|SETTING|COUNT|FILTER: SETTING a tile forced through
# VKATTN_ATTENTION_TILE or VKATTN_MATMUL_TILE (or -), COUNT the cases that must run and pass with
# it (- for the main runs, whose reports are checked together below).
# The main runs: both fragment kernels' long case lists (a process each: the longest jobs), the
# cooperative-matrix-2 kernel's attention cases with both kernels' head-dim sweeps at 16, 40 and
# 64, its features case and the matmul shapes; the KHR kernel's attention cases, its features case
# and the choice tests, and linear's weights dequantized under f16 x into the KHR matmul kernel. One case of another attention kernel shows it still runs on a device that
# enables the memory model for the matrix units. The sweep's larger head dims (80 to 256) are left
# to `vkattn conformance` on a GPU: Mesa 26's LLVM 22 took 1 to 4 minutes to compile each of them.
# The forced tiles: the cooperative-matrix-2 kernel's Q/output block lies over its K/V tiles, so
# two cases with tiles (ROWSxKEYSxSTAGES) past what this CPU driver gets by default,
# double-buffered (2 stages), and with the block larger than the tiles (8-key tiles under 4
# subgroups' rows); the KHR attention kernel with 64-key tiles (one subgroup's rows and one stage:
# what fits lavapipe's 32 KiB of shared memory; GPUs take 64 keys with more rows and two stages);
# the KHR matmul kernel, which at lavapipe's default tile (4 fragments a side) stores each slice
# word as it loads, with 2 fragments and one stage (FRAGSxBKxSTAGES), holding the next slice in
# registers, and with 4 fragments and one stage, the tile AMD GPUs get.
coopmat2_pair='Kernels/Attention.DkDiffersFromDv/kernel_coopmat2:Kernels/Attention.LongKeyRange/kernel_coopmat2'
jobs=(
  'fragment-khr|-|-|Kernels/AttentionFragmentKernel.*/kernel_coopmat'
  'khr|-|-|Kernels/Attention.*/kernel_coopmat:*AttentionFragmentFeatures*/kernel_coopmat:CoopmatChoice.*:Coopmat2Choice.*:*QuantizedLinear.DequantizedUnderF16Activations/*'
  'fragment-nv2|-|-|Kernels/AttentionFragmentKernel.*/kernel_coopmat2'
  'nv2-and-matmul|-|-|Sweep/*kernel_coopmat__d16:Sweep/*kernel_coopmat__d40:Sweep/*kernel_coopmat__d64:Sweep/*kernel_coopmat2__d16:Sweep/*kernel_coopmat2__d40:Sweep/*kernel_coopmat2__d64:*AttentionFragmentFeatures*/kernel_coopmat2:Kernels/Attention.*/kernel_coopmat2:Kernels/Attention.DkDiffersFromDv/fused:*FragmentMatmul*/kernel_coopmat__*'
  'khr-1x64x1|VKATTN_ATTENTION_TILE=1x64x1|1|Kernels/Attention.LongKeyRange/kernel_coopmat'
  'matmul-4x32x1|VKATTN_MATMUL_TILE=4x32x1|20|*FragmentMatmul*/kernel_coopmat__*'
  'nv2-2x16x2|VKATTN_ATTENTION_TILE=2x16x2|2|'"$coopmat2_pair"
  'matmul-2x32x1|VKATTN_MATMUL_TILE=2x32x1|20|*FragmentMatmul*/kernel_coopmat__*'
  'nv2-4x8x1|VKATTN_ATTENTION_TILE=4x8x1|2|'"$coopmat2_pair"
)
run_job() {  # NAME SETTING FILTER: writes $build/conformance-mesa26-NAME.{txt,json,rc}
  local name=$1 setting=$2 filter=$3 rc=0
  (
    [ "$setting" = - ] || export "${setting?}"
    VKATTN_PIPELINE_CACHE_FILE=/var/cache/vkattn-mesa26-pipelines-$name.bin in_root "$build/vkattn" conformance \
      --validation --json "$build/conformance-mesa26-$name.json" --filter "$filter"
  ) > "$build/conformance-mesa26-$name.txt" 2>&1 || rc=$?
  echo "$rc" > "$build/conformance-mesa26-$name.rc"
}
rm -f "$build"/conformance-mesa26-*
for job in "${jobs[@]}"; do
  IFS='|' read -r name setting count filter <<< "$job"
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  run_job "$name" "$setting" "$filter" &
done
wait
status=0
reports=()
for job in "${jobs[@]}"; do
  IFS='|' read -r name setting count filter <<< "$job"
  log=$build/conformance-mesa26-$name.txt
  if [ "$count" = - ]; then
    cat "$log"
    reports+=("$build/conformance-mesa26-$name.json")
    [ "$(cat "$build/conformance-mesa26-$name.rc")" = 0 ] || { echo "Mesa 26 leg: a conformance case of $name failed (above)" >&2; status=1; }
  elif [ "$(cat "$build/conformance-mesa26-$name.rc")" != 0 ] || ! grep -q "^$count passed, 0 skipped, 0 failed" "$log"; then
    cat "$log"
    echo "Mesa 26 leg: ${setting%%=*} ${setting#*=} did not run and pass $count cases" >&2
    status=1
  else
    echo "Mesa 26 leg: ${setting%%=*} ${setting#*=}: $count cases passed"
  fi
done
[ "$status" -eq 0 ] || exit 1
# The cooperative-matrix-2 row reductions (docs/attention.md): the attention kernel's own row count
# (the device's granularity) must reduce right; two and four times it are printed, not required
# (Mesa 26.2's lavapipe reduces only the first granule of rows right).
reduce=$(in_root "$build/tools/vkattn_coopmat2_row_reduce" 2>&1) || true
echo "$reduce"
echo "$reduce" | grep -q "(1 of granularity [0-9]*), 16 columns:  row max right  row sum right  element row/column right  load/store right" ||
  { echo "Mesa 26 leg: cooperative-matrix-2 row reductions are wrong at the granularity" >&2; exit 1; }
# Auto under the GPU profile picks the fragment kernels here (the matrix units are usable). The
# case needs a second Vulkan instance in its process, at whose exit sid's validation layer
# (1.4.363) aborts (so does any such case, e.g. test_linear's RowsKernelWithoutSubgroupShuffles):
# it runs in a process of its own without the layer.
VKATTN_VALIDATION=0 in_root "$build/tests/test_device_choices" --gtest_brief=1 --gtest_filter='CoopmatAuto.*' ||
  { echo "Mesa 26 leg: CoopmatAuto failed" >&2; exit 1; }
# Each cooperative-matrix row ran on the real extension: enough executed cases, none failed.
/usr/bin/python3 - "${reports[@]}" <<'PY'
import json, sys
rows, flavours, flexible = {}, set(), set()
for path in sys.argv[1:]:
    report = json.load(open(path))
    flavours.add(report["cooperative_matrix"])
    flexible.add(report["cooperative_matrix_2"])
    for r in report["kernels"]:
        total = rows.setdefault(r["kernel"], {"passed": 0, "skipped": 0, "failures": []})
        total["passed"] += r["passed"]
        total["skipped"] += r["skipped"]
        total["failures"] += r["failures"]
flavour = flavours.pop()
if flavours or not flavour.startswith("KHR"):
    sys.exit("Mesa 26 leg: the kernels did not run on VK_KHR_cooperative_matrix: " + flavour)
flexible_choice = flexible.pop()
if flexible or not flexible_choice.startswith("NV2"):
    sys.exit("Mesa 26 leg: the cooperative-matrix-2 kernel cannot run: " + flexible_choice)
for kernel in ("attention_coopmat", "linear_coopmat", "attention_coopmat2"):
    r = rows.get(kernel)
    executed = r["passed"] - r["skipped"] if r else 0
    if not r or r["failures"] or executed < 20:
        sys.exit(f"Mesa 26 leg: {kernel}: {executed} cases executed and passed (at least 20 needed), "
                 f"failures {r['failures'] if r else 'n/a'}")
    on = flexible_choice if kernel.endswith("coopmat2") else flavour
    print(f"Mesa 26 leg: {kernel}: {executed} cases executed on {on}, all passed")
PY
echo "Mesa 26 leg: $(( $(date +%s) - start )) s"
