# Installs the library, its headers and a CMake package so that another
# project can `find_package(tern)` and link `tern::tern`.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tern EXPORT ternTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tern
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h"
        PATTERN "test" EXCLUDE PATTERN "test_support" EXCLUDE)
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
