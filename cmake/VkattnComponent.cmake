# vkattn_component(<name> HEADERS <dir> [OUTPUT_NAME <file>] SOURCES <src>...
#                  [PUBLIC <dep>...] [PRIVATE <dep>...])
#   One library of the installed package: the target vkattn_<name>, known to users as
#   vkattn::<name> (its alias here, its export name in find_package(vkattn)); public headers under
#   include/ (HEADERS: the folder that is installed, see vkattn_install_library), private ones
#   under src/ where the component has that folder; the project's warnings for its own sources;
#   OUTPUT_NAME the library file's name (default vkattn_<name>).
function(vkattn_component name)
  cmake_parse_arguments(ARG "" "HEADERS;OUTPUT_NAME" "SOURCES;PUBLIC;PRIVATE" ${ARGN})
  if(NOT ARG_HEADERS OR NOT ARG_SOURCES)
    message(FATAL_ERROR "vkattn_component(${name}): HEADERS and SOURCES are required")
  endif()
  if(NOT ARG_OUTPUT_NAME)
    set(ARG_OUTPUT_NAME vkattn_${name})
  endif()
  set(target vkattn_${name})
  add_library(${target} ${ARG_SOURCES})
  add_library(vkattn::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME} EXPORT_NAME ${name})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  if(IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/src)
    target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  endif()
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE} $<BUILD_INTERFACE:vkattn_warnings>)
  vkattn_install_library(${target} ${ARG_HEADERS})
endfunction()
