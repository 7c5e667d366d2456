# Installs the built tree into a scratch prefix, then configures, builds and
# runs test/consumer against it. Fails if any step fails.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
run(${CMAKE_COMMAND} --install ${TERN_BINARY_DIR} --prefix ${WORK_DIR}/prefix)
# Tern's stand-ins for Gazebo's stock SDFormat models, which the SDFormat
# loader finds in <datadir>/tern/sdf_stock of an install.
foreach(f sun/model.sdf sun/model.config ground_plane/model.sdf
          ground_plane/model.config)
  if(NOT EXISTS ${WORK_DIR}/prefix/share/tern/sdf_stock/${f})
    message(FATAL_ERROR "not installed: share/tern/sdf_stock/${f}")
  endif()
endforeach()
# The code block after the marker in docs/discretization.md, as a header.
file(READ ${DOCS_FILE} docs)
string(FIND "${docs}" "<!-- test/consumer compiles" marker)
if(marker EQUAL -1)
  message(FATAL_ERROR "${DOCS_FILE}: no '<!-- test/consumer compiles' marker")
endif()
string(SUBSTRING "${docs}" ${marker} -1 docs)
string(FIND "${docs}" "```cpp\n" begin)
string(FIND "${docs}" "\n```\n" end)
if(begin EQUAL -1 OR end EQUAL -1 OR end LESS begin)
  message(FATAL_ERROR "${DOCS_FILE}: no ```cpp block after the marker")
endif()
math(EXPR begin "${begin} + 7")
math(EXPR length "${end} - ${begin} + 1")
string(SUBSTRING "${docs}" ${begin} ${length} example)
file(WRITE ${WORK_DIR}/docs_example/docs_example.h "${example}")
set(flags "")
if(SANITIZE)
  set(flags "-fsanitize=address,undefined")
endif()
# A request for a version the package is not compatible with must fail at
# configure time, saying so.
foreach(too_new 0.3 1.0)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR}
      -B ${WORK_DIR}/build_${too_new} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
      -DTERN_REQUESTED_VERSION=${too_new} -DDOCS_EXAMPLE_DIR=${WORK_DIR}/docs_example
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "not compatible|version")
    message(FATAL_ERROR "find_package(tern ${too_new}) did not fail clearly "
                        "(${rc}):\n${err}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DTERN_REQUESTED_VERSION=0.2
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DDOCS_EXAMPLE_DIR=${WORK_DIR}/docs_example
    "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
