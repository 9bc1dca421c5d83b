# Compile options shared by every glassbox target (applied through glassbox_target_defaults()).
set(GLASSBOX_SANITIZE "" CACHE STRING "Sanitizers to build with, e.g. address;undefined")

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

add_library(glassbox_compile_options INTERFACE)
# Warnings and path mapping are this tree's own; a project built against the installed package
# (cmake/GlassboxPackage.cmake) gets only the usage requirements: C++20, the include root, the link option.
target_compile_options(glassbox_compile_options INTERFACE
  $<BUILD_INTERFACE:$<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>>
  # __FILE__ and std::source_location give repo-relative paths (engine/cpu/binary.cpp:42) in
  # registrations and dumps; debug info keeps absolute paths so gdb finds the sources.
  $<BUILD_INTERFACE:$<$<COMPILE_LANGUAGE:CXX>:-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=>>)

# GCC's variable-tracking assignments make -O2 -g locals more often printable in gdb, and cost a
# fifth of an optimised build's compile time (a third of it on the generated registration files:
# RegisterSchema.cpp 42 s -> 13 s). Debug builds (-O0) print every local without them; the types,
# line tables and the other locals stay either way. ON brings them back for a RelWithDebInfo build.
option(GLASSBOX_VAR_TRACKING "Keep GCC's -fvar-tracking-assignments in optimised builds with debug info" OFF)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT GLASSBOX_VAR_TRACKING)
  target_compile_options(glassbox_compile_options INTERFACE
    $<BUILD_INTERFACE:$<$<COMPILE_LANGUAGE:CXX>:-fno-var-tracking-assignments>>
    $<BUILD_INTERFACE:$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fno-var-tracking-assignments>>)
endif()
target_compile_features(glassbox_compile_options INTERFACE cxx_std_20)
target_include_directories(glassbox_compile_options INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>)

# Libraries whose only job at load time is to register operators (static initialisers) are not
# referenced by symbol; with --as-needed (the default of some toolchains) the linker would drop
# them and their operators would silently be missing.
target_link_options(glassbox_compile_options INTERFACE "LINKER:--no-as-needed")

if(GLASSBOX_SANITIZE)
  list(JOIN GLASSBOX_SANITIZE "," _glassbox_san)
  target_compile_options(glassbox_compile_options INTERFACE
    $<BUILD_INTERFACE:$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${_glassbox_san} -fno-omit-frame-pointer -fno-sanitize-recover=all>>)
  target_link_options(glassbox_compile_options INTERFACE -fsanitize=${_glassbox_san})
endif()

function(glassbox_target_defaults target)
  target_link_libraries(${target} PRIVATE glassbox_compile_options)
  set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET default)
endfunction()
