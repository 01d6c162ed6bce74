# Test time limits for slower drivers. Each test states the limit CI runs it under; a run on a
# driver that builds kernels several times slower (Mesa 25's lavapipe, tools/run_on_mesa25.sh)
# configures VKATTN_TEST_TIMEOUT_SCALE instead of editing them. Every CMakeLists.txt that adds
# tests calls vkattn_scale_test_timeouts() at its end (set_tests_properties reaches only the
# current directory's tests).
set(VKATTN_TEST_TIMEOUT_SCALE 1 CACHE STRING "Factor applied to every test's TIMEOUT (a whole number >= 1)")
if(NOT VKATTN_TEST_TIMEOUT_SCALE MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "VKATTN_TEST_TIMEOUT_SCALE must be a whole number >= 1, not '${VKATTN_TEST_TIMEOUT_SCALE}'")
endif()

function(vkattn_scale_test_timeouts)
  if(VKATTN_TEST_TIMEOUT_SCALE EQUAL 1)
    return()
  endif()
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} TIMEOUT limit)
    if(NOT limit)
      set(limit 1500)  # ctest's default limit
    endif()
    math(EXPR limit "${limit} * ${VKATTN_TEST_TIMEOUT_SCALE}")
    set_tests_properties(${test} PROPERTIES TIMEOUT ${limit})
  endforeach()
endfunction()
