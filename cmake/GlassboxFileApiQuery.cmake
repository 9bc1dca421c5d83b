# Every configure leaves a CMake File API reply in the build directory, so glassbox's own tools
# (glassbox deps, compile-db, ...) can read any of our build trees without re-running cmake.
# CMake reads queries at generate time, so writing the query during configure is enough.
set(_glassbox_query_dir "${CMAKE_BINARY_DIR}/.cmake/api/v1/query/client-glassbox")
set(_glassbox_query [=[{
  "requests": [
    {"kind": "codemodel", "version": 2},
    {"kind": "cache", "version": 2},
    {"kind": "cmakeFiles", "version": 1},
    {"kind": "toolchains", "version": 1}
  ]
}
]=])
file(MAKE_DIRECTORY "${_glassbox_query_dir}")
# file(CONFIGURE) only touches the file when its content changes.
file(CONFIGURE OUTPUT "${_glassbox_query_dir}/query.json" CONTENT "${_glassbox_query}" @ONLY)
