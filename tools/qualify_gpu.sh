#!/usr/bin/env bash
# Qualifies vkattn on this machine's GPU and writes one Markdown report: the device list, the
# shader conformance suite (with the Khronos validation layer when it is installed), attention
# beside PyTorch's scaled_dot_product_attention in the same command (when a CUDA or ROCm PyTorch is
# importable), and the row-kernel, attention/decode and linear benchmarks. Needs no display.
#
#   tools/qualify_gpu.sh [--build-dir DIR] [--no-build] [--quick] [--out REPORT.md]
#
# --no-build     use an existing build in --build-dir (default: build-qualify)
# --quick        the quick conformance list and the smallest benchmark shapes (minutes, not an hour)
# Environment:
#   VKATTN_VULKAN_PREFIX  a folder holding a Vulkan loader (lib/ or usr/lib/<triplet>/) and, if
#                         wanted, the validation layers (share/vulkan/explicit_layer.d), for machines
#                         where they are not installed system-wide
#   VKATTN_PYTHON         the Python that has PyTorch (default: python3)
#   VKATTN_DEVICE         the device to qualify (default: vkattn's choice)
#   VKATTN_QUALIFY_VENDOR a vendor id (e.g. 0x10005, Mesa's) to qualify although its device is not
#                         a discrete or integrated GPU; otherwise such a device (lavapipe, for one)
#                         is refused: a missing GPU driver must not pass as a qualified GPU
set -uo pipefail
cd "$(dirname "$0")/.."

build=build-qualify
do_build=1
quick=0
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --quick) quick=1; shift ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "qualify_gpu: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
out="${out:-$build/qualification.md}"
python="${VKATTN_PYTHON:-python3}"

# A loader and layers from a prefix, when the system has none.
if [ -n "${VKATTN_VULKAN_PREFIX:-}" ]; then
  p="$VKATTN_VULKAN_PREFIX"
  for d in "$p/lib" "$p/lib64" "$p/usr/lib" "$p"/usr/lib/*-linux-gnu "$p"/lib/*-linux-gnu; do
    [ -d "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  done
  for d in "$p/share/vulkan/explicit_layer.d" "$p/usr/share/vulkan/explicit_layer.d"; do
    [ -d "$d" ] && export VK_LAYER_PATH="$d${VK_LAYER_PATH:+:$VK_LAYER_PATH}"
  done
fi

mkdir -p "$build"
log="$build/qualification.log"
: > "$log"
step() { echo "== $*" | tee -a "$log" >&2; }

if [ "$do_build" = 1 ]; then
  step "building in $build ($(nproc) cores)"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKATTN_BUILD_VIEWER=OFF >> "$log" 2>&1 &&
    cmake --build "$build" -j"$(nproc)" >> "$log" 2>&1 || { echo "qualify_gpu: the build failed; see $log" >&2; exit 1; }
fi
vkattn="$build/vkattn"
[ -x "$vkattn" ] || { echo "qualify_gpu: no $vkattn (build first, or drop --no-build)" >&2; exit 1; }

report() { printf '%s\n' "$@" >> "$out"; }
fenced() { report '```'; cat "$1" >> "$out"; report '```' ''; }
: > "$out"
report "# vkattn qualification" "" "$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -srm), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)" ""

step "devices"
"$vkattn" devices > "$build/devices.txt" 2>&1
report "## Devices" ""
fenced "$build/devices.txt"
# The device vkattn chose ("* N: name (kind, vendor 0x...., driver)") must be a GPU, or the vendor
# the caller named: where the GPU's driver is missing, vkattn falls back to lavapipe.
chosen=$(grep -m1 '^\* ' "$build/devices.txt" || true)
kind=$(sed -nE 's/^\* [0-9]+: .* \(([^,]*), vendor (0x[0-9a-f]+), .*$/\1/p' <<< "$chosen")
vendor=$(sed -nE 's/^\* [0-9]+: .* \(([^,]*), vendor (0x[0-9a-f]+), .*$/\2/p' <<< "$chosen")
if [ "$kind" != "discrete GPU" ] && [ "$kind" != "integrated GPU" ] &&
   [ "${VKATTN_QUALIFY_VENDOR:-none}" != "$vendor" ]; then
  echo "qualify_gpu: refusing to qualify '${chosen#\* }': it is ${kind:-no device} (vendor ${vendor:-unknown}), not a" \
       "discrete or integrated GPU. Is the GPU's Vulkan driver (ICD) installed? Set VKATTN_QUALIFY_VENDOR=$vendor" \
       "to qualify it anyway." | tee -a "$log" >&2
  report "**Refused:** the chosen device is ${kind:-no device} (vendor ${vendor:-unknown}), not a GPU."
  exit 1
fi

validation=""
layer_path="${VK_LAYER_PATH:-}"
for d in ${layer_path//:/ } /usr/share/vulkan/explicit_layer.d /etc/vulkan/explicit_layer.d; do
  ls "$d"/*khronos_validation*.json > /dev/null 2>&1 && validation="--validation"
done
list=$([ "$quick" = 1 ] && echo --quick || echo --full)
step "conformance $list ${validation:-(no validation layer found)}"
"$vkattn" conformance $list $validation --json "$build/conformance.json" > "$build/conformance.txt" 2>&1
conformance_status=$?
report "## Conformance ($list${validation:+, validation layer on})" ""
fenced "$build/conformance.txt"

step "attention beside PyTorch"
report "## Attention beside PyTorch SDPA" ""
if "$python" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" > /dev/null 2>&1; then
  sdpa_args=(--vkattn "$vkattn" --variants auto,rows,tiled,coopmat --dtype f16 --out "$build/sdpa.md")
  [ "$quick" = 1 ] && sdpa_args+=(--quick)
  "$python" bench/compare_torch_sdpa.py "${sdpa_args[@]}" >> "$log" 2>&1
  sdpa_status=$?
  if [ -f "$build/sdpa.md" ]; then cat "$build/sdpa.md" >> "$out"; report ""; fi
  [ "$sdpa_status" = 0 ] || report "compare_torch_sdpa.py exited $sdpa_status (see $log)" ""
else
  report "Skipped: \`$python\` has no CUDA or ROCm PyTorch." ""
fi

bench() {  # name, filter
  local name="$1" filter="$2"
  step "bench $name"
  "$build/bench/$name" --benchmark_filter="$filter" > "$build/$name.txt" 2>&1
  report "## $name" ""
  fenced "$build/$name.txt"
}
if [ "$quick" = 1 ]; then
  bench bench_row_ops '4096/1024'
  bench bench_attention 'h8_l1024_d64_f32|decode'
  bench bench_linear 'rows_f32/512/512/512|coopmat_f16/512/512/512'
else
  bench bench_row_ops '.'
  bench bench_attention '.'
  bench bench_linear '.'
fi

step "report written to $out"
if [ "$conformance_status" != 0 ]; then
  echo "qualify_gpu: conformance failed (exit $conformance_status); see $out" >&2
  exit 1
fi
exit 0
