# vkattn_install_library(<target> <header dir>)
#   Installs a library into the vkattnTargets export set and its public headers: a header dir
#   named include/vkattn goes to <includedir>/vkattn, one named include/vkattn/<part> to
#   <includedir>/vkattn/<part>.
function(vkattn_install_library target headers)
  install(TARGETS ${target} EXPORT vkattnTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  get_filename_component(name ${headers} NAME)
  if(name STREQUAL "vkattn")
    install(DIRECTORY ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  else()
    install(DIRECTORY ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/vkattn)
  endif()
endfunction()

# Writes and installs the package files after every library has joined the export set:
# find_package(vkattn) then gives vkattn::base, vkattn::runtime, vkattn::io, vkattn::tokenizers, vkattn::models,
# vkattn::reference.
function(vkattn_install_package)
  include(CMakePackageConfigHelpers)
  install(EXPORT vkattnTargets NAMESPACE vkattn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vkattn)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vkattnConfig.cmake.in
    ${PROJECT_BINARY_DIR}/vkattnConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vkattn)
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/vkattnConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/vkattnConfig.cmake ${PROJECT_BINARY_DIR}/vkattnConfigVersion.cmake
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vkattn)
endfunction()
