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
# lazygen_generate(<target> OPS <ops.yaml>... OUTPUT_DIR <dir> [HOOKS <sources or dirs>...]
#                  [NO_HOOK_CHECK])
#
# The same runtime library <target>, built from generated sources vendored into <dir>, a
# directory of your own source tree that you check in (docs/vendoring.md). Building <target>
# never runs lazygen, so a machine without the generator builds it. Around it:
#   <target>_generate           a custom target (not part of `all`) that runs lazygen on OPS into
#                               <dir>: build it when OPS change (or lazygen does), then commit <dir>
#   <target>_generated_in_sync  a CTest test (call enable_testing()) running `lazygen --check` on
#                               <dir>: it fails with a diff while <dir> is stale, and, when lazygen
#                               has its LibTooling checker, verifies HOOKS as well (against the
#                               build's compile_commands.json). Disabled where LAZYGEN_EXECUTABLE
#                               does not exist.
# A relative <dir> is relative to the current source directory. The output is unformatted
# (--no-format), so it is the same wherever it is generated. While <dir> holds no generated
# sources yet, <target> is left undefined (with a warning): build <target>_generate, then
# configure again.
#
# Both work in-tree (add_subdirectory(lazygen)) and after `cmake --install` (find_package(lazygen)):
# LAZYGEN_EXECUTABLE, LAZYGEN_TEMPLATE_DIR, LAZYGEN_RUNTIME_SOURCE_DIR and
# LAZYGEN_RUNTIME_SOURCES are set by whichever of the two brought this file in.

# _lazygen_shard_numbers(<out>): the kernel shards' numbers, 0..31 whatever the ops
# (kOpShards in generator/dest/emit.h; See Note [Op shards] in
# generator/dest/pointwise.cpp). A function, not a variable: it serves projects that bring
# lazygen in with add_subdirectory, whose variables stay in lazygen's directory.
function(_lazygen_shard_numbers out)
  set(numbers "")
  foreach(k RANGE 31)
    list(APPEND numbers ${k})
  endforeach()
  set(${out} ${numbers} PARENT_SCOPE)
endfunction()

# _lazygen_generated_files(<all> <sources>): the files lazygen writes, relative to its output
# directory (kept in sync with generator/dest/emit_all.cpp by a test), and the C++ sources among
# them that a runtime compiles. Not listed: the functor header of each `pointwise:` op
# (include/lazygen/generated/pointwise/<op id>.h), the IR node class, shape function, eager CPU
# kernel, CUDA launcher, lazy-device function and autograd recording headers of each op
# (include/lazygen/generated/ir/<op id>.h, shapes/, cpu/, cuda/, lazy/, autograd/) and the op
# API's header per name (include/lazygen/generated/ops/<name>.h), written with the rest.
function(_lazygen_generated_files all sources)
  set(headers
    include/lazygen/generated/op_list.inc include/lazygen/generated/ir_nodes.h
    include/lazygen/generated/shape_inference.h include/lazygen/generated/ops.h
    include/lazygen/generated/tensor_methods.inc include/lazygen/generated/pointwise_ops.h
    include/lazygen/generated/cpu_kernels.h include/lazygen/generated/pointwise_functions.inc
    include/lazygen/generated/lazy_ops.h
    include/lazygen/generated/backward.h include/lazygen/generated/cuda_device_functions.inc
    include/lazygen/generated/cuda_kernels.h src/cuda_ops.cpp
    include/lazygen/generated/torch_adapters.h src/torch_kernels.cpp)
  set(cpp
    src/lowering.cpp src/pointwise_facts.cpp src/tile_kernels.cpp src/chain_dispatch.cpp
    src/op_info.cpp)
  _lazygen_shard_numbers(shards)
  foreach(k IN LISTS shards)
    list(APPEND headers src/cuda_kernels_${k}.cu src/cuda_ops_${k}.cpp src/torch_kernels_${k}.cpp)
    list(APPEND cpp src/shape_inference_${k}.cpp src/ops_${k}.cpp src/cpu_kernels_${k}.cpp
                    src/tile_kernels_${k}.cpp src/op_info_${k}.cpp src/backward_${k}.cpp
                    src/lazy_ops_${k}.cpp src/lowering_${k}.cpp)
  endforeach()
  set(${all} ${headers} ${cpp} PARENT_SCOPE)
  set(${sources} ${cpp} PARENT_SCOPE)
endfunction()

# _lazygen_hook_sources(<out> <sources or dirs>...): the .cpp files of HOOKS, absolute.
function(_lazygen_hook_sources out)
  set(hook_sources "")
  foreach(h IN LISTS ARGN)
    get_filename_component(h "${h}" ABSOLUTE)
    if(IS_DIRECTORY "${h}")
      file(GLOB_RECURSE found CONFIGURE_DEPENDS "${h}/*.cpp")
      list(APPEND hook_sources ${found})
    else()
      list(APPEND hook_sources "${h}")
    endif()
  endforeach()
  set(${out} "${hook_sources}" PARENT_SCOPE)
endfunction()

# _lazygen_runtime_library(<target> <generated dir> <hook sources>...): the static runtime library
# of lazygen_add_runtime and lazygen_generate, from the runtime sources, the generated sources in
# <generated dir> and the hooks.
function(_lazygen_runtime_library target gen_dir)
  _lazygen_generated_files(unused generated_cpp)
  list(TRANSFORM generated_cpp PREPEND "${gen_dir}/")
  add_library(${target} STATIC ${LAZYGEN_RUNTIME_SOURCES} ${generated_cpp} ${ARGN})
  target_include_directories(${target} PUBLIC "${gen_dir}/include"
    "${LAZYGEN_RUNTIME_SOURCE_DIR}/include" "${LAZYGEN_RUNTIME_SOURCE_DIR}")
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_definitions(${target} PRIVATE LAZYGEN_VERSION="${LAZYGEN_VERSION_STRING}")
  lazygen_runtime_compile_options(${target} "${LAZYGEN_RUNTIME_SOURCE_DIR}" "${gen_dir}")
  lazygen_runtime_link_options(${target} "${LAZYGEN_RUNTIME_SOURCE_DIR}/linked_registrations.cpp")
  find_package(Threads REQUIRED)
  lazygen_openblas(${target} PRIVATE)
  target_link_libraries(${target} PUBLIC Threads::Threads)
endfunction()

function(lazygen_add_runtime target)
  cmake_parse_arguments(arg "NO_HOOK_CHECK" "" "OPS;HOOKS" ${ARGN})
  if(NOT arg_OPS)
    message(FATAL_ERROR "lazygen_add_runtime(${target}): OPS <ops.yaml> is required")
  endif()
  set(gen_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}_generated")
  _lazygen_generated_files(outputs unused)
  list(TRANSFORM outputs PREPEND "${gen_dir}/")
  list(TRANSFORM arg_OPS PREPEND "${CMAKE_CURRENT_SOURCE_DIR}/" REGEX "^[^/]")
  file(GLOB templates "${LAZYGEN_TEMPLATE_DIR}/*.tmpl")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${LAZYGEN_EXECUTABLE}" ${arg_OPS} -o "${gen_dir}" --templates "${LAZYGEN_TEMPLATE_DIR}" --no-format
    DEPENDS ${arg_OPS} ${templates} "${LAZYGEN_EXECUTABLE}"
    COMMENT "lazygen: generating ${target} from ${arg_OPS}"
    VERBATIM)
  _lazygen_hook_sources(hook_sources ${arg_HOOKS})
  _lazygen_runtime_library(${target} "${gen_dir}" ${hook_sources})
  if(LAZYGEN_HOOK_CHECK_AVAILABLE AND NOT arg_NO_HOOK_CHECK AND hook_sources)
    # lazygen's own hooks (runtime/ops) implement the ops of lazygen's ops.yaml.
    _lazygen_add_hook_check(${target} "${arg_OPS}" "${hook_sources};${LAZYGEN_RUNTIME_SOURCE_DIR}/ops")
  endif()
endfunction()

function(lazygen_generate target)
  cmake_parse_arguments(arg "NO_HOOK_CHECK" "OUTPUT_DIR" "OPS;HOOKS" ${ARGN})
  if(NOT arg_OPS OR NOT arg_OUTPUT_DIR)
    message(FATAL_ERROR "lazygen_generate(${target}): OPS <ops.yaml> and OUTPUT_DIR <dir> are required")
  endif()
  get_filename_component(dir "${arg_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  list(TRANSFORM arg_OPS PREPEND "${CMAKE_CURRENT_SOURCE_DIR}/" REGEX "^[^/]")
  set(lazygen_args ${arg_OPS} -o "${dir}" --templates "${LAZYGEN_TEMPLATE_DIR}" --no-format)
  add_custom_target(${target}_generate
    COMMAND "${LAZYGEN_EXECUTABLE}" ${lazygen_args}
    COMMENT "lazygen: writing ${target}'s generated sources into ${dir} (check them in)"
    VERBATIM)

  _lazygen_hook_sources(hook_sources ${arg_HOOKS})
  set(check_hooks "")
  if(LAZYGEN_HOOK_CHECK_AVAILABLE AND NOT arg_NO_HOOK_CHECK AND hook_sources)
    # As lazygen_add_runtime's build-time check, at test time (after the build, whose
    # compile_commands.json says how the hooks compile).
    string(REPLACE ";" "," hook_list "${hook_sources};${LAZYGEN_RUNTIME_SOURCE_DIR}/ops")
    set(check_hooks --hooks "${hook_list}" --compile-commands "${CMAKE_BINARY_DIR}")
  endif()
  add_test(NAME ${target}_generated_in_sync
    COMMAND "${LAZYGEN_EXECUTABLE}" ${lazygen_args} --check ${check_hooks})
  if(NOT TARGET "${LAZYGEN_EXECUTABLE}" AND NOT EXISTS "${LAZYGEN_EXECUTABLE}")
    message(STATUS "lazygen_generate(${target}): no generator (LAZYGEN_EXECUTABLE "
                   "'${LAZYGEN_EXECUTABLE}'): ${target}_generated_in_sync is disabled")
    set_tests_properties(${target}_generated_in_sync PROPERTIES DISABLED TRUE)
  endif()

  _lazygen_generated_files(files unused)
  set(missing "")
  foreach(f IN LISTS files)
    if(NOT EXISTS "${dir}/${f}")
      list(APPEND missing "${f}")
    endif()
  endforeach()
  if(missing)
    list(LENGTH missing n)
    list(LENGTH files total)
    list(GET missing 0 first)
    message(WARNING "lazygen_generate(${target}): ${dir} lacks ${n} of the ${total} files lazygen "
                    "writes (${first}, ...). Build the target ${target}_generate to write them, "
                    "then configure again; until then ${target} is not defined.")
    return()
  endif()
  _lazygen_runtime_library(${target} "${dir}" ${hook_sources})
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
    DEPENDS ${ops} ${hooks} "${LAZYGEN_EXECUTABLE}" "${CMAKE_CURRENT_BINARY_DIR}/${target}_generated/src/op_info.cpp"
    COMMENT "lazygen: checking ${target}'s hand-written hooks with Clang LibTooling"
    VERBATIM)
  add_custom_target(${target}_hook_check DEPENDS "${stamp}")
  add_dependencies(${target} ${target}_hook_check)
endfunction()
include("${CMAKE_CURRENT_LIST_DIR}/LazygenKernels.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/LazygenOpenBlas.cmake")
