# Installs the build into a scratch prefix, checks that no installed file names the source tree,
# runs the installed `vkattn` CLI (which finds the installed model), then configures, builds and
# runs a separate project that finds every library with find_package(vkattn).
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()

# No installed file may point into the source (or build) tree.
file(GLOB_RECURSE installed LIST_DIRECTORIES false ${WORK}/prefix/*)
foreach(f IN LISTS installed)
  if(f MATCHES "\\.(safetensors|png)$")
    continue()
  endif()
  file(STRINGS ${f} hits REGEX "${SOURCE_ROOT}|${BUILD}")
  if(hits)
    message(FATAL_ERROR "${f} names the source or build tree:\n${hits}")
  endif()
endforeach()

execute_process(COMMAND ${WORK}/prefix/bin/vkattn translate "The plan was approved."
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "installed vkattn translate: ${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "plan")
  message(FATAL_ERROR "the installed CLI failed to translate:\n${out}${err}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed:\n${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed:\n${out}${err}")
endif()
execute_process(COMMAND ${WORK}/build/consumer ${WORK} ${WORK}/prefix/share/vkattn/models
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the consumer failed:\n${out}${err}")
endif()
