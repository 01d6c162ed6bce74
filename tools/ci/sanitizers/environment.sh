# Sanitizer settings for running a VKATTN_SANITIZE build: source it before ctest. The
# suppression files name only the Vulkan driver stack (loader, lavapipe, LLVM, validation layer).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="suppressions=$here/ubsan.supp:print_stacktrace=1:halt_on_error=1"
# Any ThreadSanitizer report fails the test: the process exits 66 at the end, after printing all.
export TSAN_OPTIONS="suppressions=$here/tsan.supp:second_deadlock_stack=1"
# The Vulkan loader unloads lavapipe and the validation layer when the instance goes, and a leak
# report cannot name a module that is gone; preloaded, they stay, so lsan.supp can match them.
driver_libs=""
for lib in libvulkan_lvp.so libVkLayer_khronos_validation.so; do
  # awk reads to the end: leaving early would stop ldconfig with SIGPIPE, a failure under pipefail.
  path=$(ldconfig -p | awk -v lib="$lib" '$1 == lib && found == "" { found = $NF } END { print found }')
  [ -n "$path" ] && driver_libs="${driver_libs:+$driver_libs:}$path"
done
export LD_PRELOAD="${driver_libs}${LD_PRELOAD:+:$LD_PRELOAD}"
# Every C++ test runs sanitized except install_find_package, whose consumer project is built
# without the sanitizer flags the installed library needs, and format, which runs no project code.
export VKATTN_ASAN_EXCLUDE="^(install_find_package|format)$"
