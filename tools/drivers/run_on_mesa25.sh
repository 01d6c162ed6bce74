#!/usr/bin/env bash
# Runs the tests (ctest) of BUILD_DIR on Mesa 25's lavapipe from bookworm-backports without installing
# it (tools/drivers/mesa25_env.sh: downloaded, unpacked, and only this process's environment points the
# Vulkan loader at it).
#   tools/drivers/run_on_mesa25.sh BUILD_DIR [ctest args...]     (default ctest args: -j1 --output-on-failure)
# MESA25_DIR (default /work/mesa25) holds the downloads and the unpacked driver; MESA25_DIR-cache.bin
# (vkattn's pipeline cache) and MESA25_DIR-shader-cache (Mesa's) are this driver's own, so a run
# never reuses kernels that the system's Mesa compiled, nor spoils its caches.
# MESA25_TIMEOUT_SCALE (default 4) multiplies every test's time limit for the run.
set -euo pipefail
build=$(cd "${1:?usage: run_on_mesa25.sh BUILD_DIR [ctest args...]}" && pwd)
shift
root=${MESA25_DIR:-/work/mesa25}
source "$(dirname "$0")/mesa25_env.sh"
export MESA_SHADER_CACHE_DIR=$root-shader-cache
# ctest gives every test VKATTN_PIPELINE_CACHE from this cache variable; this driver gets its own
# file. This lavapipe builds the rows kernel several times more slowly than Mesa 22.3.6 (its LLVM
# IR for memory accesses is 8 lanes long; README, Driver versions), so the tests' time limits are
# scaled by MESA25_TIMEOUT_SCALE (default 4). Reconfigures only (no compile flag depends on
# either); the build's own values come back when the run ends.
cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
own_cache=$(cached VKATTN_TEST_PIPELINE_CACHE)
own_scale=$(cached VKATTN_TEST_TIMEOUT_SCALE)
restore() { cmake -DVKATTN_TEST_PIPELINE_CACHE="$own_cache" -DVKATTN_TEST_TIMEOUT_SCALE="${own_scale:-1}" "$build" > /dev/null; }
trap restore EXIT
cmake -DVKATTN_TEST_PIPELINE_CACHE="$root-cache.bin" -DVKATTN_TEST_TIMEOUT_SCALE="${MESA25_TIMEOUT_SCALE:-4}" "$build" > /dev/null

"$build/vkattn" devices
if [ "$#" -eq 0 ]; then set -- -j1 --output-on-failure; fi
start=$(date +%s)
status=0
ctest --test-dir "$build" "$@" || status=$?
echo "ctest on Mesa 25: exit $status, $(( $(date +%s) - start )) s wall"
exit "$status"
