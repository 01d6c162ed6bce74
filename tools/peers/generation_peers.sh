#!/usr/bin/env bash
# A language model generating, vkattn beside llama.cpp's Vulkan backend on the same device and the
# same file: `vkattn bench generate` writes a random-weight model (TinyLlama-1.1B's shape unless
# shape flags are given), checks its logits against the float64 reference and times a prompt and
# decode; llama-bench (from tools/peers/llama_cpp_bundle.sh's tarball, unpacked) then times the same
# file, pp PROMPT and tg NEW, 3 repetitions. Writes OUT/generation_peers.md (one row per weight
# type: prompt and decode tokens/s of each, and vkattn / llama.cpp) beside each run's output.
#   tools/peers/generation_peers.sh BUILD BUNDLE_DIR OUT [WEIGHTS...] [-- bench generate's shape flags]
# WEIGHTS default to Q4_K F16; PROMPT (512) and NEW (128) come from the environment. Each block
# format's prompt is also timed with the other prompt weight kernels (PROMPT_KERNELS, default
# "dequantized coopmat2-wg", through VKATTN_PROMPT_WEIGHT_KERNEL; a kernel the device lacks, or
# one its Auto does not take there (CPU drivers), is reported, not fatal), one row each beside the
# same llama.cpp figures; each row names the weight kernel its prompt ran through.
set -euo pipefail
build=${1:?usage: tools/peers/generation_peers.sh BUILD BUNDLE_DIR OUT [WEIGHTS...] [-- SHAPE FLAGS]}
bundle=${2:?usage: tools/peers/generation_peers.sh BUILD BUNDLE_DIR OUT [WEIGHTS...] [-- SHAPE FLAGS]}
out=${3:?usage: tools/peers/generation_peers.sh BUILD BUNDLE_DIR OUT [WEIGHTS...] [-- SHAPE FLAGS]}
shift 3
weights=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do weights+=("$1"); shift; done
[ $# -gt 0 ] && shift
shape=("$@")
[ ${#weights[@]} -gt 0 ] || weights=(Q4_K F16)
prompt=${PROMPT:-512}
new=${NEW:-128}
prompt_kernels=${PROMPT_KERNELS-dequantized coopmat2-wg}
mkdir -p "$out"
table=$out/generation_peers.md
{
  echo "| weights | vkattn prompt | llama.cpp Vulkan pp$prompt | vkattn decode | llama.cpp Vulkan tg$new | vkattn / llama.cpp (prompt, decode) |"
  echo "|---|---|---|---|---|---|"
} > "$table"
for w in "${weights[@]}"; do
  model=$out/model-$w.gguf
  "$build/vkattn" bench generate "${shape[@]}" --weights "$w" --prompt-tokens "$prompt" --new-tokens "$new" \
    --model-out "$model" > "$out/vkattn-$w.txt" 2>&1 || { echo "vkattn bench generate $w failed: $out/vkattn-$w.txt" >&2; continue; }
  GGML_VK_VISIBLE_DEVICES=${GGML_VK_VISIBLE_DEVICES:-0} "$bundle/run" llama-bench -m "$model" -p "$prompt" -n "$new" \
    -ngl 99 -dev Vulkan0 -r 3 -o json > "$out/llama-$w.json" 2> "$out/llama-$w.log" ||
    echo "llama-bench $w failed: $out/llama-$w.log" >&2
  runs=("$out/vkattn-$w.txt")
  if [ "$w" != F16 ] && [ "$w" != F32 ]; then
    for kernel in $prompt_kernels; do
      log=$out/vkattn-$w-$kernel.txt
      if ! VKATTN_PROMPT_WEIGHT_KERNEL=$kernel "$build/vkattn" bench generate "${shape[@]}" --weights "$w" \
        --prompt-tokens "$prompt" --new-tokens "$new" > "$log" 2>&1; then
        echo "vkattn bench generate $w with the prompt kernel $kernel failed: $(tail -n 1 "$log")" >&2
      elif ! grep -q "^prompt: .*(weight kernel $kernel)" "$log"; then
        echo "the prompt kernel $kernel is not taken on this device (CPU drivers keep theirs): $log" >&2
      else
        runs+=("$log")
      fi
    done
  fi
  for run in "${runs[@]}"; do
    python3 - "$run" "$out/llama-$w.json" "$w" >> "$table" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
rate = lambda name: float(re.search(rf"^{name}: +([0-9.]+) tokens/s", text, re.M).group(1))
ours = (rate("prompt"), rate("decode"))
kernel = re.search(r"^prompt: .*\(weight kernel (\S+)\)", text, re.M)
label = sys.argv[3] + (f" (prompt: {kernel.group(1)})" if kernel else "")
try:
    runs = json.load(open(sys.argv[2]))
    theirs = (next(r["avg_ts"] for r in runs if r["n_prompt"] > 0), next(r["avg_ts"] for r in runs if r["n_gen"] > 0))
except (OSError, ValueError, StopIteration):
    theirs = (float("nan"), float("nan"))
print(f"| {label} | {ours[0]:.0f} | {theirs[0]:.0f} | {ours[1]:.1f} | {theirs[1]:.1f} | "
      f"{ours[0] / theirs[0]:.2f}×, {ours[1] / theirs[1]:.2f}× |")
PY
  done
  rm -f "$model"
done
cat "$table"
