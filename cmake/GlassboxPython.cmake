# glassbox_python_extension(NAME SOURCES... LIBS ...): a pybind11 module glassbox.<NAME>, written
# to <build>/python/glassbox/ where python/glassbox/__init__.py finds it.
function(glassbox_python_extension name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  pybind11_add_module(${name} ${ARG_SOURCES})
  glassbox_target_defaults(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS})
  set_target_properties(${name} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/python/glassbox
    BUILD_RPATH "${PROJECT_BINARY_DIR}/lib")
endfunction()
