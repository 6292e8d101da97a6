# lazygen_add_runtime(<target> OPS <ops.yaml>... [HOOKS <sources or dirs>...] [NO_HOOK_CHECK])
#
# For projects with their own ops: runs `lazygen` on OPS at build time (into
# ${CMAKE_CURRENT_BINARY_DIR}/<target>_generated; regenerated when the YAML, the templates or
# lazygen change) and builds a static runtime library <target> from the lazygen runtime sources,
# the generated sources and your hand-written hooks. Link <target> instead of lazygen::runtime.
# When lazygen was built with its LibTooling checker, the hooks are verified at build time
# against the declarations ops.yaml implies (missing or mismatched ones fail the build with the
# declaration to paste).
#
# Works in-tree (add_subdirectory(lazygen)) and after `cmake --install` (find_package(lazygen)):
# LAZYGEN_EXECUTABLE, LAZYGEN_TEMPLATE_DIR, LAZYGEN_RUNTIME_SOURCE_DIR and
# LAZYGEN_RUNTIME_SOURCES are set by whichever of the two brought this file in.

function(lazygen_add_runtime target)
  # The files lazygen writes (kept in sync with generator/dest/emit_all.cpp by a test).
  set(LAZYGEN_GENERATED_HEADERS
    include/lazygen/generated/op_list.inc include/lazygen/generated/ir_nodes.h
    include/lazygen/generated/shape_inference.h include/lazygen/generated/ops.h
    include/lazygen/generated/tensor_methods.inc include/lazygen/generated/pointwise_ops.h
    include/lazygen/generated/pointwise_ops_0.h include/lazygen/generated/pointwise_ops_1.h
    include/lazygen/generated/pointwise_ops_2.h include/lazygen/generated/pointwise_ops_3.h
    include/lazygen/generated/cpu_kernels.h include/lazygen/generated/pointwise_functions.inc
    include/lazygen/generated/lazy_ops.h
    include/lazygen/generated/backward.h include/lazygen/generated/cuda_device_functions.inc
    include/lazygen/generated/cuda_kernels.h src/cuda_kernels.cu src/cuda_ops.cpp
    include/lazygen/generated/torch_adapters.h src/torch_kernels.cpp)
  set(LAZYGEN_GENERATED_SOURCES
    src/shape_inference.cpp src/ops.cpp src/cpu_kernels_0.cpp src/cpu_kernels_1.cpp
    src/cpu_kernels_2.cpp src/cpu_kernels_3.cpp src/lazy_ops.cpp src/lowering.cpp
    src/backward.cpp src/tile_kernels.cpp src/op_info.cpp)
  cmake_parse_arguments(arg "NO_HOOK_CHECK" "" "OPS;HOOKS" ${ARGN})
  if(NOT arg_OPS)
    message(FATAL_ERROR "lazygen_add_runtime(${target}): OPS <ops.yaml> is required")
  endif()
  set(gen_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}_generated")
  set(outputs "")
  set(generated_cpp "")
  foreach(f IN LISTS LAZYGEN_GENERATED_HEADERS LAZYGEN_GENERATED_SOURCES)
    list(APPEND outputs "${gen_dir}/${f}")
  endforeach()
  foreach(f IN LISTS LAZYGEN_GENERATED_SOURCES)
    list(APPEND generated_cpp "${gen_dir}/${f}")
  endforeach()
  list(TRANSFORM arg_OPS PREPEND "${CMAKE_CURRENT_SOURCE_DIR}/" REGEX "^[^/]")
  file(GLOB templates "${LAZYGEN_TEMPLATE_DIR}/*.tmpl")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${LAZYGEN_EXECUTABLE}" ${arg_OPS} -o "${gen_dir}" --templates "${LAZYGEN_TEMPLATE_DIR}" --no-format
    DEPENDS ${arg_OPS} ${templates} "${LAZYGEN_EXECUTABLE}"
    COMMENT "lazygen: generating ${target} from ${arg_OPS}"
    VERBATIM)
  set(hook_sources "")
  foreach(h IN LISTS arg_HOOKS)
    get_filename_component(h "${h}" ABSOLUTE)
    if(IS_DIRECTORY "${h}")
      file(GLOB_RECURSE found CONFIGURE_DEPENDS "${h}/*.cpp")
      list(APPEND hook_sources ${found})
    else()
      list(APPEND hook_sources "${h}")
    endif()
  endforeach()
  add_library(${target} STATIC ${LAZYGEN_RUNTIME_SOURCES} ${generated_cpp} ${hook_sources})
  target_include_directories(${target} PUBLIC "${gen_dir}/include"
    "${LAZYGEN_RUNTIME_SOURCE_DIR}/include" "${LAZYGEN_RUNTIME_SOURCE_DIR}")
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_definitions(${target} PRIVATE LAZYGEN_VERSION="${LAZYGEN_VERSION_STRING}")
  lazygen_runtime_options(${target} "${LAZYGEN_RUNTIME_SOURCE_DIR}" "${gen_dir}/src/tile_kernels.cpp")
  find_package(Threads REQUIRED)
  set(BLA_VENDOR OpenBLAS)
  find_package(BLAS REQUIRED)
  find_path(_lazygen_cblas cblas.h PATH_SUFFIXES openblas openblas-pthread)
  target_include_directories(${target} SYSTEM PRIVATE "${_lazygen_cblas}")
  find_package(ZLIB REQUIRED)  # the Fashion-MNIST reader (runtime/data)
  target_link_libraries(${target} PUBLIC Threads::Threads ZLIB::ZLIB PRIVATE ${BLAS_LIBRARIES})
  if(LAZYGEN_HOOK_CHECK_AVAILABLE AND NOT arg_NO_HOOK_CHECK AND hook_sources)
    # lazygen's own hooks (runtime/ops) implement the ops of lazygen's ops.yaml.
    _lazygen_add_hook_check(${target} "${arg_OPS}" "${hook_sources};${LAZYGEN_RUNTIME_SOURCE_DIR}/ops")
  endif()
endfunction()

# Verifies the hooks with lazygen --hooks before <target> compiles them.
function(_lazygen_add_hook_check target ops hooks)
  string(REPLACE ";" "," hook_list "${hooks}")
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${target}_hooks.stamp")
  add_custom_command(
    OUTPUT "${stamp}"
    COMMAND "${LAZYGEN_EXECUTABLE}" ${ops} --check -o "${CMAKE_CURRENT_BINARY_DIR}/${target}_generated"
            --templates "${LAZYGEN_TEMPLATE_DIR}" --no-format --hooks "${hook_list}"
            --compile-commands "${CMAKE_BINARY_DIR}"
    COMMAND ${CMAKE_COMMAND} -E touch "${stamp}"
    DEPENDS ${ops} ${hooks} "${LAZYGEN_EXECUTABLE}" "${CMAKE_CURRENT_BINARY_DIR}/${target}_generated/src/ops.cpp"
    COMMENT "lazygen: checking ${target}'s hand-written hooks with Clang LibTooling"
    VERBATIM)
  add_custom_target(${target}_hook_check DEPENDS "${stamp}")
  add_dependencies(${target} ${target}_hook_check)
endfunction()
include("${CMAKE_CURRENT_LIST_DIR}/LazygenKernels.cmake")
