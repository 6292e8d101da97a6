# lazygen_openblas(<target> <PRIVATE|INTERFACE>): what the runtime's opener of OpenBLAS
# (runtime/ops/cpu/openblas.cpp) needs: cblas.h, the library's soname to dlopen, and libdl.
# OpenBLAS is not linked: Note [Choosing OpenBLAS's kernels] in runtime/ops/cpu/openblas.h.
function(lazygen_openblas target scope)
  set(BLA_VENDOR OpenBLAS)
  find_package(BLAS REQUIRED)
  find_path(LAZYGEN_CBLAS_INCLUDE cblas.h PATH_SUFFIXES openblas openblas-pthread)
  if(NOT LAZYGEN_CBLAS_INCLUDE)
    message(FATAL_ERROR "lazygen needs cblas.h from OpenBLAS.\n"
                        "Install it with:  sudo apt-get install -y libopenblas-dev")
  endif()
  list(GET BLAS_LIBRARIES 0 library)
  get_filename_component(library "${library}" REALPATH)
  set(soname "libopenblas.so.0")
  if(CMAKE_OBJDUMP)
    execute_process(COMMAND "${CMAKE_OBJDUMP}" -p "${library}" OUTPUT_VARIABLE dynamic
                    ERROR_QUIET)
    if(dynamic MATCHES "SONAME +([^\n ]+)")
      set(soname "${CMAKE_MATCH_1}")
    endif()
  endif()
  target_include_directories(${target} SYSTEM ${scope} "${LAZYGEN_CBLAS_INCLUDE}")
  target_compile_definitions(${target} ${scope} LAZYGEN_OPENBLAS_SONAME="${soname}")
  target_link_libraries(${target} ${scope} ${CMAKE_DL_LIBS})
endfunction()
