# glassbox_generate_ops: the operator C++ generated from engine/ops/ops.yaml by codegen/.
#
#   glassbox_generate_ops(
#     OPS_YAML <file>                 # e.g. ${PROJECT_SOURCE_DIR}/engine/ops/ops.yaml
#     [DERIVATIVES_YAML <file>]       # backward formulas: autograd/<op>.cpp outputs
#     [OUT_DIR <dir>]                 # default ${PROJECT_BINARY_DIR}/generated/glassbox/ops
#     SOURCES_VAR <var>               # receives the generated .cpp files
#     HEADERS_VAR <var>               # receives the generated headers (.h, TensorMethods.inc)
#     [CUDA_SOURCES_VAR <var>]        # receives RegisterCUDA.cpp (else it is in SOURCES_VAR)
# The Python bindings (python/*.cpp) go to the global property GLASSBOX_GENERATED_PYTHON_SOURCES.
#     [TARGET <name>])                # the custom target; default glassbox_codegen
#
# At configure time the generator runs as a dry run (--list-outputs), so CMake knows the exact
# outputs; configuration re-runs when ops.yaml or the generator changes (a new operator is a new
# file). At build time a custom command regenerates when ops.yaml, a template or the generator
# changes, and rewrites only the outputs whose content changed: the outputs are BYPRODUCTS of a
# stamp file, so Ninja re-checks their timestamps (restat) and rebuilds only what really changed.
#
# Every target whose sources include engine/core/tensor.h (which includes TensorMethods.inc) or a
# generated header must depend on the custom target: add_dependencies(<target> glassbox_codegen).
include_guard(GLOBAL)

set(_GLASSBOX_CODEGEN_DIR "${CMAKE_CURRENT_LIST_DIR}/../codegen")
cmake_path(NORMAL_PATH _GLASSBOX_CODEGEN_DIR)

function(glassbox_generate_ops)
  cmake_parse_arguments(ARG "" "OPS_YAML;DERIVATIVES_YAML;OUT_DIR;SOURCES_VAR;HEADERS_VAR;CUDA_SOURCES_VAR;TARGET" "" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "glassbox_generate_ops: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  foreach(required OPS_YAML SOURCES_VAR HEADERS_VAR)
    if(NOT ARG_${required})
      message(FATAL_ERROR "glassbox_generate_ops: ${required} is required")
    endif()
  endforeach()
  if(NOT ARG_OUT_DIR)
    set(ARG_OUT_DIR "${PROJECT_BINARY_DIR}/generated/glassbox/ops")
  endif()
  if(NOT ARG_TARGET)
    set(ARG_TARGET glassbox_codegen)
  endif()
  cmake_path(ABSOLUTE_PATH ARG_OPS_YAML BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
  cmake_path(ABSOLUTE_PATH ARG_OUT_DIR BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE)
  if(NOT EXISTS "${ARG_OPS_YAML}")
    message(FATAL_ERROR "glassbox_generate_ops: ${ARG_OPS_YAML} does not exist")
  endif()

  if(Python_EXECUTABLE)
    set(python "${Python_EXECUTABLE}")
  else()
    find_program(GLASSBOX_CODEGEN_PYTHON NAMES python3 python REQUIRED)
    set(python "${GLASSBOX_CODEGEN_PYTHON}")
  endif()

  set(codegen_dir "${_GLASSBOX_CODEGEN_DIR}")
  file(GLOB generator_files CONFIGURE_DEPENDS "${codegen_dir}/*.py" "${codegen_dir}/glassbox_codegen/*.py")
  file(GLOB template_files CONFIGURE_DEPENDS "${codegen_dir}/templates/*")
  set(command "${python}" "${codegen_dir}/generate.py" --ops-yaml "${ARG_OPS_YAML}" --out-dir "${ARG_OUT_DIR}"
              --source-root "${PROJECT_SOURCE_DIR}")
  set(yaml_inputs "${ARG_OPS_YAML}")
  if(ARG_DERIVATIVES_YAML)
    cmake_path(ABSOLUTE_PATH ARG_DERIVATIVES_YAML BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    list(APPEND command --derivatives-yaml "${ARG_DERIVATIVES_YAML}")
    list(APPEND yaml_inputs "${ARG_DERIVATIVES_YAML}")
  endif()

  # The dry run: parses and checks the YAML (errors name file:line) and lists the outputs.
  set(list_file "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}_outputs.cmake")
  execute_process(COMMAND ${command} --list-outputs "${list_file}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE error)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "glassbox_generate_ops: the generator rejected ${ARG_OPS_YAML}:\n${output}${error}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${yaml_inputs} ${generator_files})
  include("${list_file}")  # GLASSBOX_CODEGEN_HEADERS, _SOURCES, _CUDA_SOURCES

  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}.stamp")
  cmake_path(RELATIVE_PATH ARG_OPS_YAML BASE_DIRECTORY "${PROJECT_SOURCE_DIR}" OUTPUT_VARIABLE yaml_shown)
  # The generated files are outputs, not byproducts: when a run rewrites some of them, Ninja must
  # rebuild what compiles them in the same build (a byproduct that changes is only noticed by the
  # next one). Files left unwritten keep their time, and restat spares their dependents.
  add_custom_command(
    OUTPUT "${stamp}" ${GLASSBOX_CODEGEN_HEADERS} ${GLASSBOX_CODEGEN_SOURCES} ${GLASSBOX_CODEGEN_CUDA_SOURCES}
           ${GLASSBOX_CODEGEN_PYTHON_SOURCES}
    COMMAND ${command} --stamp "${stamp}"
    DEPENDS ${yaml_inputs} ${generator_files} ${template_files}
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    COMMENT "Generating operators from ${yaml_shown}"
    VERBATIM)
  add_custom_target(${ARG_TARGET} DEPENDS "${stamp}")

  set(sources ${GLASSBOX_CODEGEN_SOURCES})
  if(ARG_CUDA_SOURCES_VAR)
    set(${ARG_CUDA_SOURCES_VAR} ${GLASSBOX_CODEGEN_CUDA_SOURCES} PARENT_SCOPE)
  else()
    list(APPEND sources ${GLASSBOX_CODEGEN_CUDA_SOURCES})
  endif()
  set(${ARG_SOURCES_VAR} ${sources} PARENT_SCOPE)
  set(${ARG_HEADERS_VAR} ${GLASSBOX_CODEGEN_HEADERS} PARENT_SCOPE)
  # The typed Python bindings belong to the glassbox._C target, made in another directory.
  set_property(GLOBAL PROPERTY GLASSBOX_GENERATED_PYTHON_SOURCES ${GLASSBOX_CODEGEN_PYTHON_SOURCES})
endfunction()

# glassbox_unity_groups(<target> <group-prefix> <group-count> <source>...)
# Compiles per-operator generated sources in a few unity groups (CMake's UNITY_BUILD_MODE GROUP).
# Each generated unit is small, but each one parsed the dispatcher and tensor headers again: a full
# build paid that once per operator. A source's group is a hash of its file name, so a change to
# one operator still rebuilds one group, and a new operator joins one group and leaves the others
# as they were. GLASSBOX_UNITY_GENERATED=OFF compiles every unit on its own.
function(glassbox_unity_groups target prefix count)
  if(NOT GLASSBOX_UNITY_GENERATED)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  foreach(src IN LISTS ARGN)
    cmake_path(GET src STEM stem)
    string(MD5 hash "${stem}")
    string(SUBSTRING "${hash}" 0 6 hash)
    math(EXPR group "0x${hash} % ${count}")
    set_property(SOURCE "${src}" PROPERTY UNITY_GROUP "${prefix}_${group}")
  endforeach()
endfunction()
