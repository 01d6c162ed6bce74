#!/usr/bin/env bash
# Qualifies vkattn on this machine's GPU and writes one Markdown report: the device list, the
# pipeline statistics of the GPU attention kernels (a spill fails), the shader conformance suite
# (with the Khronos validation layer when a new enough one is installed), attention
# beside PyTorch's scaled_dot_product_attention in the same command (when a CUDA or ROCm PyTorch is
# importable), and the row-kernel, attention/decode, linear and block-weight linear benchmarks
# (the integer-dot matrix-vector kernel beside the float one). Needs no display.
#
#   tools/gpu/qualify_gpu.sh [--build-dir DIR] [--no-build] [--target T] [--cmake-arg ARG]... [--quick]
#                        [--jobs N] [--filter PATTERN] [--no-bench] [--peers DIR] [--out REPORT.md]
#
# --no-build     use an existing build in --build-dir (default: build-qualify); it needs only
#                DIR/vkattn, DIR/vkattn-conformance and DIR/share (the translation model), so a
#                build made on another machine of the same architecture can be copied in
# --target T     build only target T (default: everything but the viewer and the Python module)
# --cmake-arg A  one more argument for the build's configure step (repeatable), e.g.
#                -DVKATTN_BUILD_TESTS=OFF to build the CLI without the conformance suite
# --quick        the quick conformance list and the smallest benchmark shapes (minutes, not an hour)
# --jobs N       conformance in N processes at once (GoogleTest shards; default: half the cores):
#                its double-precision references run on the CPU
# --filter P     only the conformance cases matching P (GoogleTest pattern)
# --no-bench     conformance only
# --peers DIR    also a 1B-class model (TinyLlama-1.1B's shape, random weights; Q4_K, and F16
#                unless --quick) generating beside llama.cpp's Vulkan backend on the same file,
#                pp512 and tg128 (tools/peers/generation_peers.sh); DIR: tools/peers/llama_cpp_bundle.sh's
#                tarball unpacked
# It prints what it needs first, and where it found each piece.
# Environment:
#   VKATTN_VULKAN_PREFIX  a folder of unpacked Debian packages (tools/gpu/unpack_build_deps.sh makes
#                         one): the Vulkan loader and headers, glslc, GoogleTest, Google Benchmark,
#                         nlohmann/json, and, if wanted, validation layers
#                         (share/vulkan/explicit_layer.d), for machines where only a GPU driver is
#                         installed; the build takes them from there
#   VKATTN_PYTHON         the Python that has PyTorch (default: python3)
#   VKATTN_DEVICE         the device to qualify (default: vkattn's choice)
#   VKATTN_QUALIFY_VENDOR a vendor id (e.g. 0x10005, Mesa's) to qualify although its device is not
#                         a discrete or integrated GPU; otherwise such a device (lavapipe, for one)
#                         is refused: a missing GPU driver must not pass as a qualified GPU
set -uo pipefail
cd "$(dirname "$0")/../.."

build=build-qualify
do_build=1
target=""
extra_cmake_args=()
quick=0
jobs=$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))
filter='*'
bench=1
peers=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --target) target="$2"; shift 2 ;;
    --cmake-arg) extra_cmake_args+=("$2"); shift 2 ;;
    --quick) quick=1; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    --filter) filter="$2"; shift 2 ;;
    --no-bench) bench=0; shift ;;
    --peers) peers="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,38p' "$0"; exit 0 ;;
    *) echo "qualify_gpu: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
out="${out:-$build/qualification.md}"
python="${VKATTN_PYTHON:-python3}"

# A loader, headers, tools and libraries from a prefix, when the system has none.
cmake_args=(-DVKATTN_BUILD_VIEWER=OFF -DVKATTN_BUILD_PYTHON=OFF)
prefix_usr=""
if [ -n "${VKATTN_VULKAN_PREFIX:-}" ]; then
  p=$(cd "$VKATTN_VULKAN_PREFIX" && pwd)
  for d in "$p/lib" "$p/lib64" "$p/usr/lib" "$p"/usr/lib/*-linux-gnu "$p"/lib/*-linux-gnu; do
    [ -d "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  done
  for d in "$p/share/vulkan/explicit_layer.d" "$p/usr/share/vulkan/explicit_layer.d"; do
    [ -d "$d" ] && export VK_LAYER_PATH="$d${VK_LAYER_PATH:+:$VK_LAYER_PATH}"
  done
  [ -d "$p/usr" ] && prefix_usr="$p/usr" || prefix_usr="$p"
  export PATH="$prefix_usr/bin:$PATH"
  cmake_args+=(-DCMAKE_PREFIX_PATH="$prefix_usr")
  [ -f "$prefix_usr/include/vulkan/vulkan.h" ] && cmake_args+=(-DVulkan_INCLUDE_DIR="$prefix_usr/include")
  for l in "$prefix_usr"/lib/*-linux-gnu/libvulkan.so "$prefix_usr"/lib/libvulkan.so; do
    [ -e "$l" ] && { cmake_args+=(-DVulkan_LIBRARY="$l"); break; }
  done
  [ -x "$prefix_usr/bin/glslc" ] && cmake_args+=(-DGLSLC="$prefix_usr/bin/glslc")
  [ -x "$prefix_usr/bin/spirv-val" ] && cmake_args+=(-DSPIRV_VAL="$prefix_usr/bin/spirv-val")
fi

# What the qualification needs, and where each piece was found (or that it is missing).
where() {  # name, path or empty
  if [ -n "$2" ]; then printf '  %-34s %s\n' "$1" "$2"; else printf '  %-34s MISSING\n' "$1"; fi
}
find_header() { for d in ${prefix_usr:+$prefix_usr/include} /usr/include /usr/local/include; do [ -e "$d/$1" ] && { echo "$d/$1"; return; }; done; }
find_lib() { for d in ${prefix_usr:+"$prefix_usr"/lib/*-linux-gnu} /usr/lib/*-linux-gnu /usr/lib /usr/local/lib; do [ -e "$d/$1" ] && { echo "$d/$1"; return; }; done; }
{
  echo "qualify_gpu needs (${VKATTN_VULKAN_PREFIX:+prefix $VKATTN_VULKAN_PREFIX, then }the system):"
  where "cmake, ninja" "$(command -v cmake) $(command -v ninja)"
  where "a C++20 compiler" "$(command -v c++ || command -v g++ || command -v clang++)"
  where "Vulkan loader (libvulkan.so.1)" "$(find_lib libvulkan.so.1)"
  where "Vulkan headers and libvulkan.so" "$(find_header vulkan/vulkan.h) $(find_lib libvulkan.so)"
  where "glslc" "$(command -v glslc)"
  where "GoogleTest" "$(find_header gtest/gtest.h)"
  where "Google Benchmark" "$(find_header benchmark/benchmark.h)"
  where "nlohmann/json" "$(find_header nlohmann/json.hpp)"
  echo "  optional: a CUDA or ROCm PyTorch in ${VKATTN_PYTHON:-python3} (the SDPA comparison); a validation layer"
  echo "  of Vulkan 1.3.301 or newer where the device has cooperative matrices (older layers cannot parse them)"
} >&2

mkdir -p "$build"
log="$build/qualification.log"
: > "$log"
step() { echo "== $*" | tee -a "$log" >&2; }

if [ "$do_build" = 1 ]; then
  step "building in $build ($(nproc) cores)"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}" "${extra_cmake_args[@]}" >> "$log" 2>&1 &&
    cmake --build "$build" -j"$(nproc)" ${target:+--target "$target"} >> "$log" 2>&1 ||
    { echo "qualify_gpu: the build failed; see $log" >&2; exit 1; }
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

# Validation only with a layer that can parse the modules in use: layers before Vulkan 1.3.301
# predate VK_NV_cooperative_matrix2 (and 1.3.255 VK_KHR_cooperative_matrix), so on a device with
# cooperative matrices an older layer would fail cases for reasons unrelated to correctness.
step "pipeline statistics"
"$vkattn" devices --pipelines --json "$build/pipelines.json" > "$build/pipelines.txt" 2>&1
pipelines_status=$?
grep -q "report spills" "$build/pipelines.txt" && pipelines_status=1
report "## Compiler statistics of every GPU kernel (exit $pipelines_status)" ""
if [ -s "$build/pipelines.json" ] &&
   python3 tools/drivers/check_compiler_budgets.py --no-budgets "gpu=$build/pipelines.json" --markdown "$build/pipelines.md" \
     > /dev/null 2>&1; then
  cat "$build/pipelines.md" >> "$out"
else
  fenced "$build/pipelines.txt"
fi
[ "$pipelines_status" = 0 ] || report "**A GPU kernel spills registers** (above)." ""

validation=""
validation_note="no validation layer found"
needed="1.3.0"
grep -q "cooperative matrix: KHR yes\|NV yes" "$build/devices.txt" && needed="1.3.301"
layer_path="${VK_LAYER_PATH:-}"
for d in ${layer_path//:/ } /usr/share/vulkan/explicit_layer.d /etc/vulkan/explicit_layer.d; do
  for json in "$d"/*khronos_validation*.json; do
    [ -f "$json" ] || continue
    version=$(sed -nE 's/.*"api_version" *: *"([0-9.]+)".*/\1/p' "$json" | head -n1)
    if [ -n "$version" ] && [ "$(printf '%s\n%s\n' "$needed" "$version" | sort -V | head -n1)" = "$needed" ]; then
      validation="--validation"
      validation_note="validation layer $version ($json)"
      break 2
    fi
    validation_note="validation layer $version ($json) is older than $needed, which this device's modules need: validation off"
  done
done
echo "qualify_gpu: $validation_note" | tee -a "$log" >&2
list=$([ "$quick" = 1 ] && echo --quick || echo --full)
here=$(pwd)
# One conformance run in $jobs processes at once (GoogleTest shards), each with its own JSON
# report and log, merged into one table: name, filter, then environment settings.
conformance() {
  local name="$1" pattern="$2"; shift 2
  local pids=() parts=()
  for i in $(seq 0 $((jobs - 1))); do
    parts+=("$build/$name.$i.json")
    rm -f "$build/$name.$i.json"
    env "$@" GTEST_TOTAL_SHARDS="$jobs" GTEST_SHARD_INDEX="$i" "$vkattn" conformance $list $validation \
      --filter "$pattern" --json "$build/$name.$i.json" > "$build/$name.$i.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  python3 "$here/tools/gpu/merge_conformance.py" "${parts[@]}" --json "$build/$name.json" > "$build/$name.txt" 2>&1
}
step "conformance $list in $jobs processes ($validation_note)"
conformance conformance "$filter"
conformance_status=$?
report "## Conformance ($list; $validation_note)" ""
fenced "$build/conformance.txt"
grep -h "^FAILED .*(" "$build"/conformance.*.log > "$build/conformance-failures.txt" 2>/dev/null
if [ -s "$build/conformance-failures.txt" ]; then
  report "### Failure messages" ""
  grep -h -A6 "^FAILED .*(" "$build"/conformance.*.log > "$build/conformance-failures.txt"
  fenced "$build/conformance-failures.txt"
fi

# Each cooperative-matrix flavour forced in turn through its conformance rows: NV and KHR through
# the fragment kernels' cases, and the cooperative-matrix-2 kernels' own (subgroup and workgroup
# scope: '*kernel_coopmat2*' takes both).
report "## Cooperative-matrix flavours, each forced" ""
for flavour in nv khr coopmat2; do
  if [ "$flavour" = coopmat2 ]; then
    pattern='*kernel_coopmat2*'
    setting="VKATTN_COOPMAT=auto"
  else
    pattern='*kernel_coopmat:*kernel_coopmat__*'
    setting="VKATTN_COOPMAT=$flavour"
  fi
  [ "$filter" = '*' ] || pattern="$filter"
  step "conformance, $flavour"
  conformance "conformance-$flavour" "$pattern" "$setting"
  status=$?
  report "### $flavour (exit $status)" ""
  fenced "$build/conformance-$flavour.txt"
  [ "$status" = 0 ] || conformance_status=$status
done

if [ "$bench" = 0 ]; then
  step "report written to $out (conformance only)"
  [ "$conformance_status" = 0 ] || { echo "qualify_gpu: conformance failed; see $out" >&2; exit 1; }
  exit 0
fi

step "attention beside PyTorch"
report "## Attention beside PyTorch SDPA" ""
if "$python" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" > /dev/null 2>&1; then
  sdpa_args=(--vkattn "$vkattn" --variants auto,rows,tiled,coopmat,coopmat2,coopmat2-wg --dtype f16 --out "$build/sdpa.md")
  [ "$quick" = 1 ] && sdpa_args+=(--quick)
  "$python" bench/compare_torch_sdpa.py "${sdpa_args[@]}" >> "$log" 2>&1
  sdpa_status=$?
  if [ -f "$build/sdpa.md" ]; then cat "$build/sdpa.md" >> "$out"; report ""; fi
  [ "$sdpa_status" = 0 ] || report "compare_torch_sdpa.py exited $sdpa_status (see $log)" ""
else
  report "Skipped: \`$python\` has no CUDA or ROCm PyTorch." ""
fi

# One of bench/'s scripts, its Markdown table appended to the report: title, script, table name.
python_table() {
  local title="$1" script="$2" name="$3"
  step "$title"
  report "## $title" ""
  local args=(--vkattn "$vkattn" --out "$build/$name.md")
  [ "$quick" = 1 ] && args+=(--quick)
  "$python" "bench/$script" "${args[@]}" >> "$log" 2>&1 || report "$script: a run failed or missed its check (see $log)" ""
  [ -f "$build/$name.md" ] && { cat "$build/$name.md" >> "$out"; report ""; }
}
python_table "Decode, linear and row kernels beside PyTorch" compare_torch_kernels.py kernels
python_table "Kernel and tile sweep" sweep_tiles.py sweep

bench() {  # name, filter
  local name="$1" filter="$2"
  [ -x "$build/bench/$name" ] || { report "## $name" "" "Not built in $build." ""; return; }
  step "bench $name"
  "$build/bench/$name" --benchmark_filter="$filter" > "$build/$name.txt" 2>&1
  report "## $name" ""
  fenced "$build/$name.txt"
}
if [ "$quick" = 1 ]; then
  bench bench_row_ops '4096/1024'
  bench bench_attention 'h8_l1024_d64_f32|decode'
  bench bench_linear 'rows_f32/512/512/512|coopmat_f16/512/512/512|coopmat2_wg_f16/512/512/512'
  bench bench_quantized_linear 'IntegerDot|WeightLinear/q4_k/1/|PromptWeightKernel/q4_k.*/512/'
else
  bench bench_row_ops '.'
  bench bench_attention '.'
  bench bench_linear '.'
  bench bench_quantized_linear '.'
fi

if [ -n "$peers" ]; then
  step "a 1B-class model generating beside llama.cpp"
  report "## A 1B-class model generating beside llama.cpp's Vulkan backend (same file)" ""
  peer_weights=(Q4_K F16)
  [ "$quick" = 1 ] && peer_weights=(Q4_K)
  tools/peers/generation_peers.sh "$build" "$peers" "$build/peers" "${peer_weights[@]}" >> "$log" 2>&1 ||
    report "generation_peers.sh failed (see $log)" ""
  [ -f "$build/peers/generation_peers.md" ] && { cat "$build/peers/generation_peers.md" >> "$out"; report ""; }
fi

step "report written to $out"
if [ "$pipelines_status" != 0 ]; then
  echo "qualify_gpu: a GPU kernel spills registers; see $out" >&2
  conformance_status=1
fi
if [ "$conformance_status" != 0 ]; then
  echo "qualify_gpu: conformance failed (exit $conformance_status); see $out" >&2
  exit 1
fi
exit 0
