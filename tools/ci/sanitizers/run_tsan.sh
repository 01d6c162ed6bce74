#!/usr/bin/env bash
# ThreadSanitizer over the tests that run Contexts on several threads at once, on lavapipe with
# the validation layer on (ctest sets VKATTN_VALIDATION=1):
#   tools/ci/sanitizers/run_tsan.sh BUILD_DIR
# configures BUILD_DIR (clang, -O1 -g, -fsanitize=thread; no viewer, Python or benchmarks),
# builds only the runtime and the two test programs, and runs them. Any race report fails it;
# tsan.supp names only the driver stack.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:?usage: run_tsan.sh BUILD_DIR}
CC=clang CXX=clang++ cmake -S "$source_dir" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DVKATTN_SANITIZE=thread \
  -DVKATTN_BUILD_VIEWER=OFF -DVKATTN_BUILD_PYTHON=OFF -DVKATTN_BUILD_BENCH=OFF
cmake --build "$build" -j"$(nproc)" --target test_threads test_faults
source "$source_dir/tools/ci/sanitizers/environment.sh"
ctest --test-dir "$build" -R '^(test_threads|test_faults)$' --output-on-failure
