# Finds every required dependency; a missing one stops configuration with the Debian package to
# install (scripts/setup installs them all).
include(FindPackageMessage)

# lazygen_require(<find_package args...> DEBIAN <packages...>)
macro(lazygen_require)
  cmake_parse_arguments(_req "" "" "DEBIAN" ${ARGN})
  find_package(${_req_UNPARSED_ARGUMENTS} QUIET)
  list(GET _req_UNPARSED_ARGUMENTS 0 _req_name)
  if(NOT ${_req_name}_FOUND)
    string(REPLACE ";" " " _req_pkgs "${_req_DEBIAN}")
    message(FATAL_ERROR
      "lazygen needs ${_req_name}, which was not found.\n"
      "Install it with:  sudo apt-get install -y ${_req_pkgs}\n"
      "(or run scripts/setup, which installs every dependency)")
  endif()
endmacro()

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
lazygen_require(yaml-cpp DEBIAN libyaml-cpp-dev)
lazygen_require(ZLIB DEBIAN zlib1g-dev)
set(BLA_VENDOR OpenBLAS)
lazygen_require(BLAS DEBIAN libopenblas-dev)
include(LazygenOpenBlas)
add_library(lazygen_blas INTERFACE)
lazygen_openblas(lazygen_blas INTERFACE)

if(LAZYGEN_HOOK_CHECKER)
  # Debian's Clang config has no version file: pin the version through LLVM's, then find Clang.
  lazygen_require(LLVM 14 CONFIG PATHS /usr/lib/llvm-14/lib/cmake/llvm DEBIAN llvm-14-dev)
  lazygen_require(Clang CONFIG PATHS /usr/lib/llvm-14/lib/cmake/clang NO_DEFAULT_PATH
                  DEBIAN libclang-14-dev libclang-cpp14-dev)
  set(LAZYGEN_HOOK_CHECKER_STATUS "on (Clang ${LLVM_PACKAGE_VERSION})")
else()
  set(LAZYGEN_HOOK_CHECKER_STATUS "off (LAZYGEN_HOOK_CHECKER=OFF): custom hooks are not verified")
endif()

if(LAZYGEN_BUILD_TESTS)
  lazygen_require(GTest DEBIAN libgtest-dev libgmock-dev)
endif()
if(LAZYGEN_BUILD_BENCHMARKS)
  lazygen_require(benchmark DEBIAN libbenchmark-dev)
endif()
