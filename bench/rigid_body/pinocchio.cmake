# Pinocchio's headers from a source tree (TERN_PINOCCHIO_SOURCE), for the
# optional comparison in rigid_body_derivatives_bench. The four headers its
# CMake generates (jrl-cmakemodules) are written here in minimal form; the
# algorithms used (RNEA and ABA derivatives) are header templates needing
# Eigen and Boost headers only.
find_package(Boost REQUIRED)
set(_src ${TERN_PINOCCHIO_SOURCE})
if(NOT EXISTS ${_src}/include/pinocchio/algorithm/aba-derivatives.hpp)
  message(FATAL_ERROR "TERN_PINOCCHIO_SOURCE=${_src} has no "
                      "include/pinocchio/algorithm/aba-derivatives.hpp")
endif()
set(_version 0.0.0)
if(EXISTS ${_src}/package.xml)
  file(STRINGS ${_src}/package.xml _line REGEX "<version>")
  string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" _version "${_line}")
endif()
string(REPLACE "." ";" _parts ${_version})
list(GET _parts 0 _major)
list(GET _parts 1 _minor)
list(GET _parts 2 _patch)
set(_gen ${CMAKE_CURRENT_BINARY_DIR}/pinocchio_generated)
file(WRITE ${_gen}/pinocchio/config.hpp
"#pragma once
#define PINOCCHIO_MAJOR_VERSION ${_major}
#define PINOCCHIO_MINOR_VERSION ${_minor}
#define PINOCCHIO_PATCH_VERSION ${_patch}
#define PINOCCHIO_VERSION \"${_version}\"
#define PINOCCHIO_VERSION_AT_LEAST(M, m, p) \\
  (PINOCCHIO_MAJOR_VERSION > (M) || (PINOCCHIO_MAJOR_VERSION == (M) && \\
  (PINOCCHIO_MINOR_VERSION > (m) || (PINOCCHIO_MINOR_VERSION == (m) && \\
  PINOCCHIO_PATCH_VERSION >= (p)))))
#define PINOCCHIO_DLLAPI
#define PINOCCHIO_LOCAL
")
file(WRITE ${_gen}/pinocchio/deprecated.hpp
"#pragma once
#define PINOCCHIO_DEPRECATED __attribute__((deprecated))
#define PINOCCHIO_DEPRECATED_MESSAGE(m) __attribute__((deprecated(m)))
")
file(WRITE ${_gen}/pinocchio/warning.hpp
"#pragma once
#define PINOCCHIO_WARNING(x)
")
target_sources(rigid_body_derivatives_bench PRIVATE pinocchio_side.cc)
target_include_directories(rigid_body_derivatives_bench SYSTEM PRIVATE
  ${_gen} ${_src}/include ${Boost_INCLUDE_DIRS})
target_compile_definitions(rigid_body_derivatives_bench PRIVATE
  TERN_WITH_PINOCCHIO)
message(STATUS "rigid_body_derivatives_bench: Pinocchio ${_version} from ${_src}")
