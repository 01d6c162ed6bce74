# tools/gpu/qualify_gpu.sh runs end to end on an existing build: the CPU driver qualified on purpose
# (VKATTN_QUALIFY_VENDOR), the conformance split over two processes and merged into one table,
# and a failing case fails the run with its message in the report.
execute_process(COMMAND ${VKATTN} devices OUTPUT_VARIABLE devices RESULT_VARIABLE rc)
string(REGEX MATCH "\\* [0-9]+: [^\n]*vendor (0x[0-9a-f]+)" chosen "${devices}")
set(vendor "${CMAKE_MATCH_1}")
if(NOT rc EQUAL 0 OR vendor STREQUAL "")
  message(FATAL_ERROR "vkattn devices failed or named no vendor:\n${devices}")
endif()
set(ENV{VKATTN_QUALIFY_VENDOR} "${vendor}")
execute_process(COMMAND ${SCRIPT} --no-build --build-dir ${BUILD} --quick --jobs 2 --filter "*Softmax*" --no-bench
                        --out ${BUILD}/qualify-run.md
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ ${BUILD}/qualify-run.md report)
if(NOT rc EQUAL 0 OR NOT report MATCHES "2 of 2 parts" OR NOT report MATCHES "softmax +[0-9]+ +[0-9]+ +0 +0"
   OR NOT report MATCHES "[1-9][0-9]* passed, 0 skipped, 0 failed")
  message(FATAL_ERROR "qualify_gpu.sh did not qualify ${chosen} (exit ${rc}):\n${report}\n${err}")
endif()
# A case that fails (the translation model moved away) fails the run, with its message.
set(ENV{VKATTN_MODEL_DIR} "${BUILD}/no-such-model-folder")
execute_process(COMMAND ${SCRIPT} --no-build --build-dir ${BUILD} --quick --jobs 2 --filter "Translation.Documents*"
                        --no-bench --out ${BUILD}/qualify-run-failing.md
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ ${BUILD}/qualify-run-failing.md report)
if(NOT rc EQUAL 1 OR NOT report MATCHES "0 passed, 0 skipped, 1 failed" OR NOT report MATCHES "Failure messages")
  message(FATAL_ERROR "qualify_gpu.sh did not fail on a failing case (exit ${rc}):\n${report}\n${err}")
endif()
message(STATUS "qualify_gpu.sh qualified ${chosen} and failed on a failing case")
