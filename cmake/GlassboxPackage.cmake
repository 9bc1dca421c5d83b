# The C++ package: what a project outside this tree needs to build against glassbox, installed by
# `cmake --install` (and in the wheel of `pip install .`) under one root, <prefix>/glassbox:
#   include/   engine/ and registry/ headers, the generated glassbox/ops/ headers, glassbox/glassbox.h
#   lib/       libglassbox_core, libglassbox_cpu, libglassbox_cuda (cmake/GlassboxInstall.cmake)
#   share/cmake/glassbox/   glassboxConfig.cmake and the exported targets glassbox::glassbox, glassbox::cuda
# find_package(glassbox) finds it with CMAKE_PREFIX_PATH=<prefix> (CMake looks in <prefix>/glassbox*/share/cmake)
# or with glassbox.utils.cmake_prefix_path. The build tree exports the same targets
# (<build>/share/cmake/glassbox), so a checkout can be built against without installing.
include(CMakePackageConfigHelpers)

set(GLASSBOX_PACKAGE_ROOT glassbox)
set(GLASSBOX_PACKAGE_CMAKE_DIR ${GLASSBOX_PACKAGE_ROOT}/share/cmake/glassbox)

# What a consumer links: glassbox::glassbox (the engine) and glassbox::cuda (it and the CUDA kernels).
add_library(glassbox_api INTERFACE)
target_link_libraries(glassbox_api INTERFACE glassbox_cpu)
set_target_properties(glassbox_api PROPERTIES EXPORT_NAME glassbox)
set_target_properties(glassbox_core PROPERTIES EXPORT_NAME core)
set_target_properties(glassbox_cpu PROPERTIES EXPORT_NAME cpu)
set_target_properties(glassbox_cuda PROPERTIES EXPORT_NAME cuda)
set_target_properties(glassbox_compile_options PROPERTIES EXPORT_NAME usage_requirements)
target_include_directories(glassbox_compile_options INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${GLASSBOX_PACKAGE_ROOT}/include>)

set(_glassbox_package_targets glassbox_api glassbox_core glassbox_cpu glassbox_cuda glassbox_compile_options)
install(TARGETS ${_glassbox_package_targets} EXPORT glassboxTargets
  LIBRARY DESTINATION ${GLASSBOX_PACKAGE_ROOT}/lib COMPONENT python)
install(EXPORT glassboxTargets NAMESPACE glassbox:: DESTINATION ${GLASSBOX_PACKAGE_CMAKE_DIR} COMPONENT python)
export(EXPORT glassboxTargets NAMESPACE glassbox:: FILE ${PROJECT_BINARY_DIR}/share/cmake/glassbox/glassboxTargets.cmake)

install(DIRECTORY engine registry DESTINATION ${GLASSBOX_PACKAGE_ROOT}/include COMPONENT python
  FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")
install(DIRECTORY include/glassbox ${PROJECT_BINARY_DIR}/generated/glassbox
  DESTINATION ${GLASSBOX_PACKAGE_ROOT}/include COMPONENT python
  FILES_MATCHING PATTERN "*.h" PATTERN "*.inc")

if(GLASSBOX_CUDA_ENABLED)
  set(GLASSBOX_CUDA_KERNELS ON)
else()
  set(GLASSBOX_CUDA_KERNELS OFF)
endif()
foreach(_where IN ITEMS install build)
  if(_where STREQUAL "install")
    set(_dir ${PROJECT_BINARY_DIR}/package)
    set(_install_dir ${GLASSBOX_PACKAGE_CMAKE_DIR})
  else()
    set(_dir ${PROJECT_BINARY_DIR}/share/cmake/glassbox)
    set(_install_dir ${PROJECT_BINARY_DIR}/share/cmake/glassbox)
  endif()
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/glassboxConfig.cmake.in ${_dir}/glassboxConfig.cmake
    INSTALL_DESTINATION ${_install_dir})
  write_basic_package_version_file(${_dir}/glassboxConfigVersion.cmake COMPATIBILITY SameMinorVersion)
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/package/glassboxConfig.cmake ${PROJECT_BINARY_DIR}/package/glassboxConfigVersion.cmake
  DESTINATION ${GLASSBOX_PACKAGE_CMAKE_DIR} COMPONENT python)
