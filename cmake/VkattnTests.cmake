# vkattn_test(): one test program per area, its cases linking vkattn_test_support (tests/support:
# the validation-checking fixture, allClose; defined in tests/CMakeLists.txt), called by tests/ and
# by runtime/tests. One program per area; each runs with the validation layer on. Its cases are an object library
# that vkattn-conformance (`vkattn conformance`) links too, so both run the same cases.
# vkattn_test(<name> <sources...> [BUDGET <seconds>] [CI <gtest pattern>...] [EXHAUSTIVE <gtest pattern>...]):
# the cases matching CI (each kernel family's further variants, formats and shapes, left out of
# the quick tier for time) are the ctest entry <name>_ci, labelled `exhaustive` and `ci` (CI runs
# them on every change); those matching EXHAUSTIVE (long sequences, every shape x variant x dtype)
# are <name>_exhaustive, labelled `exhaustive`; the rest, the quick tier the README's test command
# runs, are the entry <name>. Together they run every case once. BUDGET: the quick entry's budget
# (cmake/VkattnTestLimits.cmake), where it is not the folder's.
function(vkattn_test name)
  cmake_parse_arguments(ARG "" "BUDGET" "CI;EXHAUSTIVE" ${ARGN})
  if(ARG_BUDGET)
    vkattn_test_budget(${ARG_BUDGET} ${name})
  endif()
  add_library(${name}_cases OBJECT ${ARG_UNPARSED_ARGUMENTS})
  set_property(DIRECTORY APPEND PROPERTY VKATTN_TEST_SOURCES ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name}_cases PUBLIC vkattn_test_support PRIVATE vkattn_warnings)
  # One precompiled header, GoogleTest and the standard library, serves every program.
  get_property(pch_owner GLOBAL PROPERTY VKATTN_TEST_PCH_OWNER)
  if(pch_owner)
    target_precompile_headers(${name}_cases REUSE_FROM ${pch_owner})
  else()
    target_precompile_headers(${name}_cases PRIVATE <gtest/gtest.h> <algorithm> <cmath> <cstdint> <random> <string>
                              <vector>)
    set_property(GLOBAL PROPERTY VKATTN_TEST_PCH_OWNER ${name}_cases)
  endif()
  set_property(GLOBAL APPEND PROPERTY VKATTN_CONFORMANCE_CASES ${name}_cases)
  add_executable(${name} $<TARGET_OBJECTS:${name}_cases>)
  # Every program of device cases lands in BUILD/tests, wherever its sources lie (scripts run them there).
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  target_link_libraries(${name} PRIVATE vkattn_test_support GTest::gtest_main vkattn_warnings)
  add_dependencies(${name} vkattn_model_files)
  set(tests ${name})
  # `vkattn conformance --quick` leaves out the same cases (cli/CMakeLists.txt writes the table).
  set(left_out ${ARG_CI} ${ARG_EXHAUSTIVE})
  list(JOIN left_out "|" patterns)
  set_property(GLOBAL APPEND PROPERTY VKATTN_EXHAUSTIVE_PATTERNS "${name}=${patterns}")
  list(JOIN left_out ":" slow)
  if(left_out)
    add_test(NAME ${name} COMMAND ${name} --gtest_brief=1 --gtest_filter=-${slow})
  else()
    add_test(NAME ${name} COMMAND ${name} --gtest_brief=1)
  endif()
  foreach(part IN ITEMS CI EXHAUSTIVE)
    if(ARG_${part})
      string(TOLOWER ${part} suffix)
      list(JOIN ARG_${part} ":" filter)
      add_test(NAME ${name}_${suffix} COMMAND ${name} --gtest_brief=1 --gtest_filter=${filter})
      set(labels exhaustive ${suffix})
      list(REMOVE_DUPLICATES labels)
      set_tests_properties(${name}_${suffix} PROPERTIES LABELS "${labels}")
      list(APPEND tests ${name}_${suffix})
    endif()
  endforeach()
  set_tests_properties(${tests} PROPERTIES
    ENVIRONMENT "VKATTN_VALIDATION=1;VKATTN_PIPELINE_CACHE=${VKATTN_TEST_PIPELINE_CACHE};${VKATTN_KERNEL_TEST_DRIVER_ENV}"
    TIMEOUT 1200)
endfunction()

# vkattn_tests_of_unlisted_sources(): each test_<name>.cpp of the calling folder that no
# vkattn_test call of that folder lists is the program test_<name>, every case in the quick tier
# under the folder's budget: a new op's cases need no CMake edit until they want a tier or a
# budget of their own. Call it after the folder's vkattn_test calls.
function(vkattn_tests_of_unlisted_sources)
  get_property(listed DIRECTORY PROPERTY VKATTN_TEST_SOURCES)
  file(GLOB sources CONFIGURE_DEPENDS RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/test_*.cpp)
  list(SORT sources)
  foreach(src IN LISTS sources)
    if(NOT src IN_LIST listed)
      get_filename_component(name ${src} NAME_WE)
      vkattn_test(${name} ${src})
    endif()
  endforeach()
endfunction()

# vkattn_unit_test(<name> <sources...> LINK <libraries...>): a library's own GoogleTest program,
# beside the library (<component>/tests), run by ctest as <name>.
function(vkattn_unit_test name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK} GTest::gtest_main vkattn_warnings)
  add_test(NAME ${name} COMMAND ${name} --gtest_brief=1)
endfunction()

# vkattn_crosscheck(<test> SCRIPT <script> PROBE <target> WORK <folder> BUDGET <seconds>): a library
# checked against an independent implementation from PyPI: SCRIPT (which installs its pinned
# packages into a venv beside WORK on its first run) drives the PROBE program. Skipped (77) only
# when PyPI is out of reach outside CI; not registered without a Python that has numpy.
include(VkattnPython)
function(vkattn_crosscheck test)
  cmake_parse_arguments(ARG "" "SCRIPT;PROBE;WORK;BUDGET" "" ${ARGN})
  if(NOT VKATTN_PYTHON)
    message(STATUS "no python3 with numpy: the ${test} test is not registered")
    return()
  endif()
  add_test(NAME ${test} COMMAND ${VKATTN_PYTHON} ${ARG_SCRIPT} $<TARGET_FILE:${ARG_PROBE}> ${ARG_WORK})
  vkattn_test_budget(${ARG_BUDGET} ${test})
  set_tests_properties(${test} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()
