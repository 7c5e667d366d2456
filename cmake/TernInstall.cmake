# Installs the library, its headers and a CMake package so that another
# project can `find_package(tern)` and link `tern::tern`.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tern EXPORT ternTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET tern_mpi)
  install(TARGETS tern_mpi EXPORT ternTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
if(TARGET tern_lcm)
  install(TARGETS tern_lcm EXPORT ternTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
# The same list test/all_headers_test compiles in one translation unit.
tern_installed_headers(tern_headers)
foreach(h IN LISTS tern_headers)
  get_filename_component(dir ${h} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${h}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${dir})
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/tern/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tern)
install(EXPORT ternTargets NAMESPACE tern::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tern)
get_property(TERN_WITH_SDFORMAT GLOBAL PROPERTY TERN_WITH_SDFORMAT)
if(NOT TERN_WITH_SDFORMAT)
  set(TERN_WITH_SDFORMAT OFF)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ternConfig.cmake.in
        ${PROJECT_BINARY_DIR}/ternConfig.cmake
        INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tern)
# While the major version is 0 a minor release may break the API, so a
# request for 0.2 accepts 0.2.x only (SameMinorVersion); from 1.0 on this
# becomes SameMajorVersion.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(tern_compatibility SameMinorVersion)
else()
  set(tern_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ternConfigVersion.cmake
        COMPATIBILITY ${tern_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/ternConfig.cmake
              ${PROJECT_BINARY_DIR}/ternConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tern)
