# Finds a Python 3 interpreter that can import numpy, so the module builds for the interpreter
# that can use it. Debian's /usr/bin/python3 carries python3-numpy; another python3 earlier on
# PATH (pyenv, a venv) may not. Sets VKATTN_PYTHON (empty when none qualifies).
set(VKATTN_PYTHON "" CACHE FILEPATH "Python interpreter for the vkattn module and its tests")
if(NOT VKATTN_PYTHON AND SKBUILD)
  # pip's build environment: the module is for the interpreter pip builds for, whose NumPy (a
  # run-time dependency only: pybind11's numpy.h needs no NumPy headers) is hidden from the build.
  set(VKATTN_PYTHON ${Python_EXECUTABLE} CACHE FILEPATH "Python interpreter for the vkattn module and its tests" FORCE)
endif()
if(NOT VKATTN_PYTHON)
  find_program(_vkattn_path_python NAMES python3)
  foreach(candidate IN ITEMS ${Python3_EXECUTABLE} /usr/bin/python3 ${_vkattn_path_python})
    if(candidate AND EXISTS ${candidate})
      execute_process(COMMAND ${candidate} -c "import numpy" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
      if(rc EQUAL 0)
        set(VKATTN_PYTHON ${candidate} CACHE FILEPATH "Python interpreter for the vkattn module and its tests" FORCE)
        break()
      endif()
    endif()
  endforeach()
endif()
if(VKATTN_PYTHON)
  message(STATUS "vkattn Python: ${VKATTN_PYTHON}")
else()
  message(STATUS "vkattn Python: no python3 with numpy found; the module is not built")
endif()
