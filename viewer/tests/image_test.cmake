# Runs the viewer headless and checks the image it wrote with viewer_check_image.
# -DVIEWER -DCHECK -DOUT (folder) -DNAME -DSIZE (WxH) -DARGS (viewer arguments joined with '|',
# %OUT% standing for OUT/NAME) [-DMAKE_NPY=ON: first write a sample npy folder at %OUT%_npy]
# [-DCHECK_ARGS: more checker arguments joined with '|'].
file(MAKE_DIRECTORY ${OUT})
set(base ${OUT}/${NAME})
string(REPLACE "%OUT%" "${base}" ARGS "${ARGS}")
string(REPLACE "|" ";" ARGS "${ARGS}")
if(ARGS MATCHES "--source;model" AND NOT EXISTS "${CMAKE_CURRENT_LIST_DIR}/../../assets/models/en_fr.safetensors"
   AND NOT DEFINED ENV{VKATTN_MODEL_DIR})
  message("SKIP: model files not found in assets/models")
  return()
endif()
if(MAKE_NPY)
  execute_process(COMMAND ${CHECK} --make-npy ${base}_npy RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "writing the sample npy folder failed")
  endif()
endif()
# [-DFIRST_ARGS: viewer arguments of a first image whose heatmap rectangle the main one must
# match (--same-area): a zoomed region fills the area the whole map took.]
if(FIRST_ARGS)
  string(REPLACE "%OUT%" "${base}_first" FIRST_ARGS "${FIRST_ARGS}")
  string(REPLACE "|" ";" FIRST_ARGS "${FIRST_ARGS}")
  execute_process(COMMAND ${VIEWER} ${FIRST_ARGS} --size ${SIZE} --layout ${base}_first.json
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "vkattn-viewer (first image) exited with ${rc}")
  endif()
  set(CHECK_ARGS "${CHECK_ARGS}|--same-area|${base}_first.json")
  string(REGEX REPLACE "^\\|" "" CHECK_ARGS "${CHECK_ARGS}")
endif()
# CHECK_ARGS "--no-layout": the image has no heatmap to describe (the overview grid).
set(layout --layout ${base}.json)
string(REPLACE "|" ";" check_args "${CHECK_ARGS}")
if(CHECK_ARGS STREQUAL "--no-layout")
  set(layout)
  set(check_args)
endif()
execute_process(COMMAND ${VIEWER} ${ARGS} --size ${SIZE} ${layout}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vkattn-viewer exited with ${rc}")
endif()
execute_process(COMMAND ${CHECK} --image ${base}.png ${layout} --size ${SIZE} ${check_args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the image does not show the map (see above)")
endif()
