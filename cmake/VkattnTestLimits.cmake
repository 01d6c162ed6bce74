# Each test's limits, set beside its registration:
# - its TIMEOUT, the limit CI runs it under. A run on a driver that builds kernels several times
#   slower (Mesa 25's lavapipe, tools/drivers/run_on_mesa25.sh) configures VKATTN_TEST_TIMEOUT_SCALE
#   instead of editing them.
# - its budget (quick tier only): the seconds it may take with every cache empty, on a 2-core
#   machine running the tier as the README does (ctest -j2). `vkattn_test_budget(SECONDS TEST...)`
#   sets it; `tools/ci/test_times.py BUILD --cold --budgets` runs the tier and names every test over
#   its budget, and the tier over VKATTN_QUICK_TIER_BUDGET. Budgets are checked by that tool, not
#   by the tests themselves: machines of one class differ up to threefold. It is also the test's
#   COST, the order ctest starts tests in before it has timed them.
# Every CMakeLists.txt that adds tests calls vkattn_finish_tests() at its end
# (set_tests_properties reaches only the current directory's tests); BUDGET there is the budget of
# the directory's quick tests that set none.
set(VKATTN_TEST_TIMEOUT_SCALE 1 CACHE STRING "Factor applied to every test's TIMEOUT (a whole number >= 1)")
if(NOT VKATTN_TEST_TIMEOUT_SCALE MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "VKATTN_TEST_TIMEOUT_SCALE must be a whole number >= 1, not '${VKATTN_TEST_TIMEOUT_SCALE}'")
endif()
# The quick tier's wall time, cold, ctest -j2 on 2 cores.
set(VKATTN_QUICK_TIER_BUDGET 150)
set(VKATTN_TEST_BUDGET_FILE ${CMAKE_BINARY_DIR}/test_budgets.tsv)
file(WRITE ${VKATTN_TEST_BUDGET_FILE} "tier\t${VKATTN_QUICK_TIER_BUDGET}\n")

function(vkattn_test_budget seconds)
  if(NOT seconds MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "vkattn_test_budget: a whole number of seconds, not '${seconds}'")
  endif()
  foreach(test IN LISTS ARGN)
    set_property(DIRECTORY APPEND PROPERTY VKATTN_TEST_BUDGETS "${test}=${seconds}")
  endforeach()
endfunction()

function(vkattn_finish_tests)
  cmake_parse_arguments(ARG "" "BUDGET" "" ${ARGN})
  get_property(tests DIRECTORY PROPERTY TESTS)
  get_property(budgets DIRECTORY PROPERTY VKATTN_TEST_BUDGETS)
  foreach(test IN LISTS tests)
    if(NOT VKATTN_TEST_TIMEOUT_SCALE EQUAL 1)
      get_test_property(${test} TIMEOUT limit)
      if(NOT limit)
        set(limit 1500)  # ctest's default limit
      endif()
      math(EXPR limit "${limit} * ${VKATTN_TEST_TIMEOUT_SCALE}")
      set_tests_properties(${test} PROPERTIES TIMEOUT ${limit})
    endif()
    get_test_property(${test} LABELS labels)
    if(labels AND "exhaustive" IN_LIST labels)
      continue()
    endif()
    set(budget "")
    foreach(entry IN LISTS budgets)
      if(entry MATCHES "^${test}=([0-9]+)$")
        set(budget ${CMAKE_MATCH_1})
      endif()
    endforeach()
    if(NOT budget)
      set(budget ${ARG_BUDGET})
    endif()
    if(NOT budget)
      message(FATAL_ERROR "test ${test} has no budget: vkattn_test_budget(SECONDS ${test}) beside its registration, "
                          "or vkattn_finish_tests(BUDGET SECONDS)")
    endif()
    file(APPEND ${VKATTN_TEST_BUDGET_FILE} "${test}\t${budget}\n")
    # ctest starts the costliest tests first; on a fresh clone, with no timings of its own yet,
    # the budget is the cost it goes by, so the long tests do not start last.
    set_tests_properties(${test} PROPERTIES COST ${budget})
  endforeach()
endfunction()
