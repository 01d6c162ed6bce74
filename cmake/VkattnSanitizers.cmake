# Sanitizer and fuzzing builds, for every target in the tree.
#   -DVKATTN_SANITIZE=address,undefined   ASan + UBSan (UBSan aborts on the first report, so a
#                                         ctest fails rather than printing and passing)
#   -DVKATTN_SANITIZE=thread              ThreadSanitizer (never together with address);
#                                         tools/ci/sanitizers/run_tsan.sh builds and runs the threaded tests
#   -DVKATTN_FUZZ=ON                      libFuzzer targets in fuzz/ (clang only); every target is
#                                         compiled with coverage so the readers are explored
set(VKATTN_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list for every target, e.g. address,undefined")
option(VKATTN_FUZZ "Build the libFuzzer targets in fuzz/ (needs clang)" OFF)

if(VKATTN_SANITIZE MATCHES "thread" AND VKATTN_SANITIZE MATCHES "address")
  message(FATAL_ERROR "VKATTN_SANITIZE: ThreadSanitizer and AddressSanitizer cannot share one build")
endif()
if(VKATTN_SANITIZE)
  add_compile_options(-fsanitize=${VKATTN_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${VKATTN_SANITIZE})
  if(VKATTN_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()

if(VKATTN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "VKATTN_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
