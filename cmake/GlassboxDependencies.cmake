# Finds what the build needs. A missing optional dependency is reported and switches its part off;
# it never fails the configure. Parts add their own lines through glassbox_report().
set_property(GLOBAL PROPERTY GLASSBOX_REPORT "")
function(glassbox_report part state why)
  # The report is a CMake list: a ';' in the text would split an entry in two.
  string(REPLACE ";" "," why "${why}")
  set_property(GLOBAL APPEND PROPERTY GLASSBOX_REPORT "${part}|${state}|${why}")
endfunction()

find_package(Threads REQUIRED)

# --- CUDA: AUTO builds glassbox_cuda when nvcc and cuBLAS are both found.
set(GLASSBOX_CUDA_ENABLED OFF)
if(NOT GLASSBOX_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED GLASSBOX_CUDA_ARCHITECTURES)
    # sm_90 (H100/H200) unless the user names others; the local GPU's when one is present.
    set(GLASSBOX_CUDA_ARCHITECTURES "90" CACHE STRING "CUDA architectures for glassbox_cuda")
    execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _gpu_cc RESULT_VARIABLE _smi_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_smi_rc EQUAL 0 AND _gpu_cc MATCHES "^([0-9]+)\\.([0-9]+)")
      set(GLASSBOX_CUDA_ARCHITECTURES "${CMAKE_MATCH_1}${CMAKE_MATCH_2}" CACHE STRING "" FORCE)
    endif()
  endif()
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES ${GLASSBOX_CUDA_ARCHITECTURES})
  endif()
  check_language(CUDA)
  find_package(CUDAToolkit QUIET)
  if(CMAKE_CUDA_COMPILER AND TARGET CUDA::cublas)
    enable_language(CUDA)
    # CMake 3.25 predates nvcc's C++20 flag table; nvcc 12+ accepts -std=c++20.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
      list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(GLASSBOX_CUDA_ENABLED ON)
    glassbox_report("glassbox_cuda" ON "nvcc ${CMAKE_CUDA_COMPILER_VERSION}, cuBLAS, sm_${CMAKE_CUDA_ARCHITECTURES}")
  elseif(GLASSBOX_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GLASSBOX_CUDA=ON but nvcc (${CMAKE_CUDA_COMPILER}) or cuBLAS was not found")
  else()
    glassbox_report("glassbox_cuda" OFF "nvcc or cuBLAS not found, building the stub")
  endif()
else()
  glassbox_report("glassbox_cuda" OFF "GLASSBOX_CUDA=OFF, building the stub")
endif()

# --- Python extension: needs the interpreter's headers and pybind11 (from the venv's pip).
if(GLASSBOX_BUILD_PYTHON)
  find_package(Python 3.9 COMPONENTS Interpreter Development.Module QUIET)
  if(Python_FOUND)
    execute_process(COMMAND "${Python_EXECUTABLE}" -m pybind11 --cmakedir
                    OUTPUT_VARIABLE _pybind11_dir RESULT_VARIABLE _pybind11_rc
                    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_pybind11_rc EQUAL 0)
      find_package(pybind11 CONFIG QUIET HINTS "${_pybind11_dir}")
    endif()
  endif()
  if(Python_FOUND AND pybind11_FOUND)
    glassbox_report("glassbox._C" ON "Python ${Python_VERSION} (${Python_EXECUTABLE}), pybind11 ${pybind11_VERSION}")
  else()
    set(GLASSBOX_BUILD_PYTHON OFF)
    glassbox_report("glassbox._C" OFF "Python development files or pybind11 not found (run scripts/bootstrap)")
  endif()
else()
  glassbox_report("glassbox._C" OFF "GLASSBOX_BUILD_PYTHON=OFF")
endif()

# --- JSON reading in tests and tools (the core writes its own JSON and does not need it).
find_package(nlohmann_json 3 QUIET)

if(GLASSBOX_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    set(GLASSBOX_BUILD_TESTS OFF)
    glassbox_report("tests" OFF "GoogleTest not found")
  else()
    glassbox_report("tests" ON "GoogleTest ${GTest_VERSION}")
  endif()
endif()
if(GLASSBOX_BUILD_BENCHMARKS)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    set(GLASSBOX_BUILD_BENCHMARKS OFF)
    glassbox_report("benchmarks" OFF "Google Benchmark not found")
  else()
    glassbox_report("benchmarks" ON "Google Benchmark ${benchmark_VERSION}")
  endif()
endif()

# --- libclang: scanning sources for operator registrations (glassbox sources, glassbox ops).
# Found through llvm-config (its libdir keeps libclang next to its builtin headers), else on the
# default paths. Without it those commands say that glassbox was built without libclang.
set(GLASSBOX_LIBCLANG_FOUND OFF)
find_program(GLASSBOX_LLVM_CONFIG NAMES llvm-config llvm-config-19 llvm-config-18 llvm-config-17
             llvm-config-16 llvm-config-15 llvm-config-14)
set(_glassbox_llvm_libdir "")
set(_glassbox_llvm_includedir "")
if(GLASSBOX_LLVM_CONFIG)
  execute_process(COMMAND "${GLASSBOX_LLVM_CONFIG}" --libdir OUTPUT_VARIABLE _glassbox_llvm_libdir
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND "${GLASSBOX_LLVM_CONFIG}" --includedir OUTPUT_VARIABLE _glassbox_llvm_includedir
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
find_library(GLASSBOX_LIBCLANG_LIBRARY NAMES clang libclang HINTS ${_glassbox_llvm_libdir})
find_path(GLASSBOX_LIBCLANG_INCLUDE_DIR clang-c/Index.h HINTS ${_glassbox_llvm_includedir})
if(GLASSBOX_LIBCLANG_LIBRARY AND GLASSBOX_LIBCLANG_INCLUDE_DIR)
  add_library(glassbox_libclang INTERFACE IMPORTED)
  target_link_libraries(glassbox_libclang INTERFACE "${GLASSBOX_LIBCLANG_LIBRARY}")
  target_include_directories(glassbox_libclang SYSTEM INTERFACE "${GLASSBOX_LIBCLANG_INCLUDE_DIR}")
  set(GLASSBOX_LIBCLANG_FOUND ON)
  glassbox_report("source scan (libclang)" ON "${GLASSBOX_LIBCLANG_LIBRARY}")
else()
  glassbox_report("source scan (libclang)" OFF "libclang not found (Debian: libclang-dev)")
endif()

# --- elfutils (libelf, libdw): ELF symbols and DWARF line tables (glassbox symbols). Without them
# the binary readers are built as a stub that says so.
set(GLASSBOX_ELFUTILS_FOUND OFF)
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(GLASSBOX_ELFUTILS QUIET IMPORTED_TARGET libdw libelf)
endif()
if(GLASSBOX_ELFUTILS_FOUND)
  glassbox_report("binary readers (elfutils)" ON "libdw ${GLASSBOX_ELFUTILS_libdw_VERSION}")
else()
  glassbox_report("binary readers (elfutils)" OFF "libdw/libelf not found (Debian: libdw-dev libelf-dev)")
endif()
