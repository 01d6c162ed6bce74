# Dumps every embedded SPIR-V module and runs vkattn_khr_check over the KHR cooperative-matrix
# twins (ids containing "_khr") and the rewriter's test module PROBE; fails on any problem. An NV
# module (binary, as dumped) must be rejected, so the checker is seen to fail too.
file(REMOVE_RECURSE ${DIR})
execute_process(COMMAND ${DUMP} ${DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vkattn_dump_spirv failed")
endif()
file(GLOB modules ${DIR}/*_khr*.spv)
list(LENGTH modules count)
execute_process(COMMAND ${CHECK} ${PROBE} ${modules} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vkattn_khr_check found problems")
endif()
execute_process(COMMAND ${CHECK} ${DIR}/matmul_coopmat_f16.spv RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(rc EQUAL 0 OR NOT err MATCHES "the CooperativeMatrixNV capability remains")
  message(FATAL_ERROR "vkattn_khr_check did not reject the NV module matmul_coopmat_f16:\n${err}")
endif()
message(STATUS "vkattn_khr_check: ${count} embedded KHR modules and the test module valid")
