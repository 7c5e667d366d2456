# Helpers shared by every folder's CMakeLists.txt.

# Warning flags for Tern's own targets.
function(tern_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(TERN_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(TERN_SANITIZE)
  # float-cast-overflow (a double outside int's range cast to int, e.g. an
  # attribute of 1e90) is not part of GCC's -fsanitize=undefined.
  add_compile_options(-fsanitize=address,undefined,float-cast-overflow
                      -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined,float-cast-overflow)
  add_link_options(-fsanitize=address,undefined,float-cast-overflow)
  # TERN_FLATTEN is a speed hint; at -Og under the sanitizers it only costs
  # compile time (tern/multibody/tree/dynamics.cc: 71 s with it, 42 s
  # without), and the tests check results, not inlining.
  add_compile_definitions(TERN_NO_FLATTEN)
endif()

# tern_installed_headers(<out_var>): the headers `install` puts under
# include/ (paths relative to the source root, "tern/..."): every tern/**/*.h
# outside test/ and test_support/ folders. One list for TernInstall and for
# test/all_headers_test; CONFIGURE_DEPENDS picks up new headers at build time.
function(tern_installed_headers out_var)
  file(GLOB_RECURSE all RELATIVE ${PROJECT_SOURCE_DIR} CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/tern/*.h)
  set(headers "")
  foreach(h IN LISTS all)
    if(NOT h MATCHES "/(test|test_support)/")
      list(APPEND headers ${h})
    endif()
  endforeach()
  list(SORT headers)
  set(${out_var} ${headers} PARENT_SCOPE)
endfunction()

# tern_add_library_sources(<file>...): adds sources of the current folder to
# the one library target `tern`.
function(tern_add_library_sources)
  foreach(src IN LISTS ARGN)
    target_sources(tern PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/${src})
  endforeach()
endfunction()

# tern_add_test(<name> <source>... [LIBS <lib>...]): one GoogleTest program
# registered with CTest (each TEST becomes its own CTest case).
function(tern_add_test name)
  if(NOT TERN_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE tern::tern GTest::gtest GTest::gtest_main
                                        ${ARG_LIBS})
  tern_set_warnings(${name})
  if(TERN_PCH)
    tern_test_pch()
    target_precompile_headers(${name} REUSE_FROM tern_test_pch)
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
                       WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()

# Precompiled headers (TERN_PCH): the standard library, Eigen and fmt for
# the library's sources, plus GoogleTest for the tests, parsed once per
# build instead of once per file. Under ASan at -Og this takes about 40% off
# a test file's compile time (a 2-core CI build is mostly compile time).
# The headers are only a cache: every file still includes what it uses.
set(TERN_PCH_HEADERS <algorithm> <cmath> <functional> <memory> <random>
    <stdexcept> <string> <vector> <Eigen/Core> <Eigen/Dense> <fmt/format.h>)
# The one PCH that every test reuses (REUSE_FROM needs equal flags: a test
# has tern's include directories and the warning flags, as this target).
function(tern_test_pch)
  if(TARGET tern_test_pch)
    return()
  endif()
  file(WRITE ${PROJECT_BINARY_DIR}/tern_test_pch.cc "// PCH carrier\n")
  add_library(tern_test_pch OBJECT ${PROJECT_BINARY_DIR}/tern_test_pch.cc)
  target_link_libraries(tern_test_pch PRIVATE tern::tern GTest::gtest)
  tern_set_warnings(tern_test_pch)
  target_precompile_headers(tern_test_pch PRIVATE ${TERN_PCH_HEADERS}
                            <gtest/gtest.h> <gmock/gmock.h>)
endfunction()

# tern_add_example(<name> <source>...)
function(tern_add_example name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE tern::tern)
  tern_set_warnings(${name})
endfunction()

# tern_add_benchmark(<name> <source>... [LIBS <lib>...])
function(tern_add_benchmark name)
  cmake_parse_arguments(ARG "" "" "LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE tern::tern benchmark::benchmark ${ARG_LIBS})
  tern_set_warnings(${name})
endfunction()

include(GoogleTest OPTIONAL)
