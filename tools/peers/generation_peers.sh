#!/usr/bin/env bash
# A language model generating, vkattn beside llama.cpp's Vulkan backend on the same device and the
# same file: `vkattn bench generate` writes a random-weight model (TinyLlama-1.1B's shape unless
# shape flags are given), checks its logits against the float64 reference and times a prompt and
# decode; llama-bench (from tools/peers/llama_cpp_bundle.sh's tarball, unpacked) then times the same
# file, pp PROMPT and tg NEW, 3 repetitions. Writes OUT/generation_peers.md (one row per weight
# type: prompt and decode tokens/s of each, and vkattn / llama.cpp) beside each run's output.
#   tools/peers/generation_peers.sh BUILD BUNDLE_DIR OUT [WEIGHTS...] [-- bench generate's shape flags]
# WEIGHTS default to Q4_K F16; PROMPT (512) and NEW (128) come from the environment.
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
  python3 - "$out/vkattn-$w.txt" "$out/llama-$w.json" "$w" >> "$table" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
rate = lambda name: float(re.search(rf"^{name}: +([0-9.]+) tokens/s", text, re.M).group(1))
ours = (rate("prompt"), rate("decode"))
try:
    runs = json.load(open(sys.argv[2]))
    theirs = (next(r["avg_ts"] for r in runs if r["n_prompt"] > 0), next(r["avg_ts"] for r in runs if r["n_gen"] > 0))
except (OSError, ValueError, StopIteration):
    theirs = (float("nan"), float("nan"))
print(f"| {sys.argv[3]} | {ours[0]:.0f} | {theirs[0]:.0f} | {ours[1]:.1f} | {theirs[1]:.1f} | "
      f"{ours[0] / theirs[0]:.2f}×, {ours[1] / theirs[1]:.2f}× |")
PY
  rm -f "$model"
done
cat "$table"
