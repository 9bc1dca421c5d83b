# What `cmake --install` (and so `pip install .`, through scikit-build-core) puts in site-packages:
#   glassbox/_C*.so, glassbox/_introspect*.so   the extensions, RPATH $ORIGIN/lib
#   glassbox/lib/libglassbox_*.so               the libraries they load, RPATH $ORIGIN
# The Python sources come from python/glassbox (pyproject.toml). Only the installed copies get
# these RPATHs: the build tree keeps its own, so nothing is relinked for an install.
if(GLASSBOX_BUILD_PYTHON AND TARGET _C)
  set(_glassbox_installed_libs glassbox_core glassbox_cpu glassbox_cuda)
  set(_glassbox_installed_extensions _C)
  if(TARGET _introspect)  # the introspection tools, where their libraries were found
    list(APPEND _glassbox_installed_libs glassbox_graphs glassbox_introspect)
    list(APPEND _glassbox_installed_extensions _introspect)
  endif()
  set_target_properties(${_glassbox_installed_libs} PROPERTIES INSTALL_RPATH "$ORIGIN")
  set_target_properties(${_glassbox_installed_extensions} PROPERTIES INSTALL_RPATH "$ORIGIN/lib")
  install(TARGETS ${_glassbox_installed_libs} LIBRARY DESTINATION glassbox/lib COMPONENT python)
  install(TARGETS ${_glassbox_installed_extensions} LIBRARY DESTINATION glassbox COMPONENT python)
endif()
