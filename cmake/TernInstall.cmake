# Installs the library, its headers and a CMake package so that another
# project can `find_package(tern)` and link `tern::tern`.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tern EXPORT ternTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The same list test/all_headers_test compiles in one translation unit.
tern_installed_headers(tern_headers)
foreach(h IN LISTS tern_headers)
  get_filename_component(dir ${h} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${h}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${dir})
endforeach()
install(EXPORT ternTargets NAMESPACE tern::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tern)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ternConfig.cmake.in
        ${PROJECT_BINARY_DIR}/ternConfig.cmake
        INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tern)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ternConfigVersion.cmake
        COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ternConfig.cmake
              ${PROJECT_BINARY_DIR}/ternConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tern)
