# What `cmake --install` (and so `pip install .`, through scikit-build-core) puts in site-packages:
#   glassbox/_C*.so, glassbox/_introspect*.so   the extensions, RPATH $ORIGIN/lib
#   glassbox/lib/libglassbox_*.so               the libraries they load, RPATH $ORIGIN
#   glassbox/include, glassbox/share/cmake       the C++ package (cmake/GlassboxPackage.cmake)
# The Python sources come from python/glassbox (pyproject.toml). Only the installed copies get
# these RPATHs: the build tree keeps its own, so nothing is relinked for an install.
if(TARGET glassbox_cpu)
  include(GlassboxPackage)  # installs the engine's libraries with their CMake targets
  set_target_properties(glassbox_core glassbox_cpu glassbox_cuda PROPERTIES INSTALL_RPATH "$ORIGIN")
endif()
if(GLASSBOX_BUILD_PYTHON AND TARGET _C)
  set(_glassbox_installed_extensions _C)
  if(TARGET _introspect)  # the introspection tools, where their libraries were found
    set_target_properties(glassbox_graphs glassbox_introspect PROPERTIES INSTALL_RPATH "$ORIGIN")
    install(TARGETS glassbox_graphs glassbox_introspect LIBRARY DESTINATION glassbox/lib COMPONENT python)
    list(APPEND _glassbox_installed_extensions _introspect)
  endif()
  set_target_properties(${_glassbox_installed_extensions} PROPERTIES INSTALL_RPATH "$ORIGIN/lib")
  install(TARGETS ${_glassbox_installed_extensions} LIBRARY DESTINATION glassbox COMPONENT python)
endif()
