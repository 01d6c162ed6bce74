#!/usr/bin/env bash
# Cold and warm start of the first-use commands, as the README's table gives them: each command
# from empty caches (vkattn's pipeline cache and Mesa's shader cache in a new folder), again with
# the caches it filled, and from empty caches after `vkattn warmup`; then warmup itself.
#   tools/gpu/measure_cold_start.sh BUILD_DIR [mesa25]
# With `mesa25`, on Mesa 25's lavapipe from bookworm-backports (tools/drivers/mesa25_env.sh); else on the
# system's driver. Prints a Markdown table; seconds of wall time, one run each.
set -euo pipefail
build=$(cd "${1:?usage: measure_cold_start.sh BUILD_DIR [mesa25]}" && pwd)
if [ "${2:-}" = mesa25 ]; then source "$(dirname "$0")/../drivers/mesa25_env.sh"; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

empty_caches() {
  rm -rf "$work/cache"
  mkdir -p "$work/cache"
  export VKATTN_PIPELINE_CACHE=$work/cache/pipelines.bin MESA_SHADER_CACHE_DIR=$work/cache/mesa
  export XDG_CACHE_HOME=$work/cache/xdg
}
seconds() {
  local start end
  start=$(date +%s%N)
  if ! "$@" > "$work/out.txt" 2>&1; then
    echo "failed: $*" >&2
    cat "$work/out.txt" >&2
    exit 1
  fi
  end=$(date +%s%N)
  printf '%d.%02d' $(((end - start) / 1000000000)) $(((end - start) / 10000000 % 100))
}

sentence="The agreement on the European Economic Area was signed in August 1992."
names=('`vkattn translate "The agreement … 1992."`' '`vkattn-viewer --source demo --export a.png`'
       '`vkattn-viewer --source model --export a.png`')
commands=("$build/vkattn translate '$sentence'" "$build/vkattn-viewer --source demo --export $work/a.png"
          "$build/vkattn-viewer --source model --export $work/a.png")

empty_caches
device=$("$build/vkattn" devices | grep -m 1 "\*" | sed "s/^ *\* *[0-9]*: *//")
echo "Device: $device"
echo
echo "| command | cold | warm (second run) | after \`vkattn warmup\` |"
echo "|---|---|---|---|"
for i in "${!commands[@]}"; do
  empty_caches
  cold=$(seconds bash -c "${commands[$i]}")
  warm=$(seconds bash -c "${commands[$i]}")
  empty_caches
  seconds "$build/vkattn" warmup > /dev/null
  after=$(seconds bash -c "${commands[$i]}")
  echo "| ${names[$i]} | $cold s | $warm s | $after s |"
done
empty_caches
echo
echo "\`vkattn warmup\` from empty caches: $(seconds "$build/vkattn" warmup) s"
