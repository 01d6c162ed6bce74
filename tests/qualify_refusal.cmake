# tools/gpu/qualify_gpu.sh must refuse a device that is not a GPU (lavapipe, where a GPU's driver is
# missing) instead of qualifying it: run it on an existing build, expect exit status 1 and the
# refusal naming the device. Where the default device is a GPU there is nothing to refuse (skipped).
execute_process(COMMAND ${VKATTN} devices OUTPUT_VARIABLE devices RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vkattn devices failed")
endif()
string(REGEX MATCH "\\* [0-9]+: [^\n]*" chosen "${devices}")
if(chosen MATCHES "\\((discrete|integrated) GPU,")
  message("qualify refusal: the default device is a GPU, nothing to refuse here: ${chosen}")
  return()
endif()
execute_process(COMMAND ${SCRIPT} --no-build --build-dir ${BUILD} --out ${BUILD}/qualify-refusal.md
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "refusing to qualify .*not a discrete or integrated GPU")
  message(FATAL_ERROR "qualify_gpu.sh did not refuse ${chosen} (exit ${rc}):\n${out}${err}")
endif()
message(STATUS "qualify_gpu.sh refused it: ${err}")
