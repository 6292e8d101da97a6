# User-facing build options. Each one is documented in docs/build.md ("Build options").
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
# Note [Shared libraries]
# ~~~~~~~~~~~~~~~~~~~~~~~
# lazygen's libraries (lazygen::runtime, lazygen::cuda, lazygen::distributed) are shared, and a
# program does not relink when one of them changes (LINK_DEPENDS_NO_SHARED): editing an op in
# ops.yaml rebuilds the units that op touches and relinks one library, not the ~50 test, example
# and benchmark programs that each held a copy of a static runtime (bench/rebuild_cost.sh
# measures it). A test whose list of cases is the op set (the consistency suite) relinks when the
# op table changes, so that CTest sees the new cases. Calls between a library's units stay direct
# (-Bsymbolic-functions binds them at link time, as a static link did, instead of through the
# PLT); the code was position-independent before, so it compiles as it did. Hot thread_locals
# take the initial-exec model (Note [Fast TLS] in lazygen/tls.h). LAZYGEN_SHARED_LIBS=OFF builds
# the same libraries static, for A/B measurements.
# Nothing reads CMake's <target>_EXPORTS macro (all symbols are exported), so no shared library
# defines it: their units compile with the same command lines as the rest of the tree.
set(CMAKE_LINK_DEPENDS_NO_SHARED ON)
option(LAZYGEN_SHARED_LIBS "Build lazygen's libraries shared (static for A/B measurements)" ON)
if(LAZYGEN_SHARED_LIBS)
  set(LAZYGEN_LIBRARY_TYPE SHARED)
else()
  set(LAZYGEN_LIBRARY_TYPE STATIC)
endif()
if(NOT APPLE)
  string(APPEND CMAKE_SHARED_LINKER_FLAGS " -Wl,-Bsymbolic-functions")
endif()
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

option(LAZYGEN_WERROR "Treat compiler warnings as errors (CI turns this on)" OFF)
option(LAZYGEN_CCACHE "Use ccache as the compiler launcher when it is installed" ON)
set(LAZYGEN_CUDA "AUTO" CACHE STRING "Build the CUDA backend: AUTO (when the toolkit is found), ON, OFF")
set_property(CACHE LAZYGEN_CUDA PROPERTY STRINGS AUTO ON OFF)
set(LAZYGEN_TORCH "AUTO" CACHE STRING "Build the PyTorch device: AUTO (when PyTorch is found), ON, OFF")
set_property(CACHE LAZYGEN_TORCH PROPERTY STRINGS AUTO ON OFF)
set(LAZYGEN_MPI "AUTO" CACHE STRING "Build lazygen::distributed's MPI engine: AUTO (when MPI is found), ON, OFF")
set_property(CACHE LAZYGEN_MPI PROPERTY STRINGS AUTO ON OFF)
set(LAZYGEN_SANITIZE "" CACHE STRING "Sanitizers: '', 'address,undefined' or 'thread'")
option(LAZYGEN_FUZZ "Clang only: libFuzzer binaries for the schema parser and the ops.yaml loader" OFF)
option(LAZYGEN_BUILD_TESTS "Build the GoogleTest suites" ON)
option(LAZYGEN_BUILD_BENCHMARKS "Build the Google Benchmark programs" ON)
option(LAZYGEN_BUILD_EXAMPLES "Build the examples" ON)
option(LAZYGEN_HOOK_CHECKER "Build the Clang LibTooling hook checker into lazygen" ON)
