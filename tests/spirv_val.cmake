# Dumps every embedded SPIR-V module and validates each with spirv-val; fails on the first error.
file(REMOVE_RECURSE ${DIR})
execute_process(COMMAND ${DUMP} ${DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${DUMP} failed")
endif()
file(GLOB modules ${DIR}/*.spv)
list(LENGTH modules count)
if(count EQUAL 0)
  message(FATAL_ERROR "no SPIR-V modules found")
endif()
# SPIRV-Tools before SPV_KHR_cooperative_matrix and SPV_NV_cooperative_matrix2 (Debian 12 ships
# 2023.1) stop at their capabilities; tools/drivers/prebuilt_spirv.sh validates those modules (the
# prebuilt ones) with a newer spirv-val, and the Mesa 26 leg (tools/drivers/run_on_mesa26.sh) validates
# every module with it. Any other message fails. The Vulkan 1.3 environment takes SPIR-V up to 1.6
# (the cooperative-matrix-2 module) as well as the 1.5 of every other module.
set(unknown_to_validator 0)
foreach(m IN LISTS modules)
  execute_process(COMMAND ${SPIRV_VAL} --target-env vulkan1.3 ${m} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    if(m MATCHES "_khr|_coopmat2" AND "${out}${err}" MATCHES "Invalid capability operand")
      math(EXPR unknown_to_validator "${unknown_to_validator} + 1")
      continue()
    endif()
    message(FATAL_ERROR "spirv-val rejected ${m}:\n${out}${err}")
  endif()
endforeach()
math(EXPR validated "${count} - ${unknown_to_validator}")
message(STATUS "spirv-val: ${validated} modules valid")
if(unknown_to_validator GREATER 0)
  message(STATUS "spirv-val: ${unknown_to_validator} cooperative-matrix modules not validated (this spirv-val predates their extensions; tools/drivers/run_on_mesa26.sh validates them)")
endif()
