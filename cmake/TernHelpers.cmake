# Helpers shared by every folder's CMakeLists.txt.

# Warning flags for Tern's own targets.
function(tern_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(TERN_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(TERN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
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
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
                       WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
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
