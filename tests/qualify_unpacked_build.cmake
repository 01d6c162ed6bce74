# tools/gpu/qualify_gpu.sh builds where only unpacked Debian packages provide Vulkan's loader and
# headers, glslc and the test libraries (tools/gpu/unpack_build_deps.sh, as on a lent GPU machine with
# only a driver): the build's CMake cache must take them from the prefix, the CLI must build, and
# on a CPU driver the script must then refuse the device. The CLI is built without the conformance
# suite (the script's --cmake-arg), whose sources need nothing more from the prefix than
# GoogleTest's package configuration, which must be there.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${ROOT}/tools/gpu/unpack_build_deps.sh ${WORK}/deps RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "unpack_build_deps.sh failed:\n${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env VKATTN_VULKAN_PREFIX=${WORK}/deps
                        ${ROOT}/tools/gpu/qualify_gpu.sh --build-dir ${WORK}/build --target vkattn_cli
                        --cmake-arg -DVKATTN_BUILD_TESTS=OFF --out ${WORK}/report.md
                WORKING_DIRECTORY ${ROOT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT err MATCHES "Vulkan headers and libvulkan.so +${WORK}/deps/usr/include/vulkan/vulkan.h")
  message(FATAL_ERROR "qualify_gpu.sh did not list the prefix's headers first:\n${err}")
endif()
file(STRINGS ${WORK}/build/CMakeCache.txt cache REGEX "^(Vulkan_INCLUDE_DIR|Vulkan_LIBRARY|GLSLC):")
foreach(var Vulkan_INCLUDE_DIR Vulkan_LIBRARY GLSLC)
  if(NOT cache MATCHES "${var}:[A-Z]+=${WORK}/deps/")
    message(FATAL_ERROR "${var} does not come from the unpacked packages: ${cache}\n${err}")
  endif()
endforeach()
file(GLOB_RECURSE gtest_config ${WORK}/deps/GTestConfig.cmake)
if(NOT gtest_config)
  message(FATAL_ERROR "the unpacked packages hold no GTestConfig.cmake (libgtest-dev)")
endif()
if(NOT EXISTS ${WORK}/build/vkattn)
  message(FATAL_ERROR "the CLI was not built (exit ${rc}):\n${out}${err}")
endif()
if(NOT err MATCHES "refusing to qualify|conformance")
  message(FATAL_ERROR "qualify_gpu.sh stopped before the device check (exit ${rc}):\n${out}${err}")
endif()
message(STATUS "built from ${WORK}/deps: ${cache}")
file(REMOVE_RECURSE ${WORK})
