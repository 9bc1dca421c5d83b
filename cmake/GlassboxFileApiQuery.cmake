# Every build directory carries a CMake File API reply, so glassbox's own tools (glassbox deps,
# compile-db, ...) can read any of our build trees. CMake reads queries when it starts, so a
# query written here is answered from the next configure on; scripts/bootstrap writes it before
# the first configure, so its builds have a reply from the start.
set(_glassbox_query_dir "${CMAKE_BINARY_DIR}/.cmake/api/v1/query/client-glassbox")
file(MAKE_DIRECTORY "${_glassbox_query_dir}")
# configure_file with COPYONLY only touches the file when its content changes.
configure_file("${CMAKE_CURRENT_LIST_DIR}/fileapi-query.json" "${_glassbox_query_dir}/query.json" COPYONLY)
