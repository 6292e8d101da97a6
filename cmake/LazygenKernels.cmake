# lazygen_add_kernels(<target> MANIFEST <file>... [OPS <ops.yaml>...])
#
# Compiles ahead-of-time kernels for the fusion groups of the manifests into <target> (See Note
# [AOT kernels] in runtime/backend/cpu/fusion/aot_kernel.h): runs `lazygen --kernels` at build
# time into ${CMAKE_CURRENT_BINARY_DIR}/lazygen_kernels/<target>/aot_kernels.cpp (again when a
# manifest, the templates or lazygen change; the output is deterministic, unformatted and only
# rewritten when it changes, so ccache keeps rebuilds cheap) and adds it to <target>'s sources.
# The kernels register themselves at startup; the runtime uses them for groups with their key.
# OPS defaults to the ops.yaml lazygen was built with (LAZYGEN_OPS_YAML when installed); it must
# be the ops file the linked runtime was generated from, or every kernel counts as stale.
#
# CUDA (See Note [CUDA AOT kernels] in runtime/backend/cuda/aot/cuda_aot_kernel.h): when lazygen was
# built with CUDA (LAZYGEN_HAVE_CUDA) and the calling project has the CUDA language enabled, the
# manifests' CUDA keys also become aot_kernels.cu (`lazygen --kernels --cuda`), compiled by nvcc
# for the target's CUDA_ARCHITECTURES through the project's CUDA launcher (ccache in lazygen's own
# build), with -Werror=all-warnings when lazygen's own build has LAZYGEN_WERROR; <target> then
# links lazygen::cuda, whose registry the kernels join. Without CUDA nothing changes.
#
# Record a manifest with LAZYGEN_RECORD=<file> ./<target> (lazygen/aot.h).
function(lazygen_add_kernels target)
  cmake_parse_arguments(arg "" "" "MANIFEST;OPS" ${ARGN})
  if(NOT arg_MANIFEST)
    message(FATAL_ERROR "lazygen_add_kernels(${target}): MANIFEST <file> is required")
  endif()
  list(TRANSFORM arg_MANIFEST PREPEND "${CMAKE_CURRENT_SOURCE_DIR}/" REGEX "^[^/]")
  if(NOT arg_OPS AND LAZYGEN_OPS_YAML)
    set(arg_OPS "${LAZYGEN_OPS_YAML}")
  endif()
  set(exe "${LAZYGEN_EXECUTABLE}")
  set(templates_dir "${LAZYGEN_TEMPLATE_DIR}")
  if(TARGET lazygen)  # in-tree (LAZYGEN_EXECUTABLE is set once the whole tree is read)
    # lazygen's source tree, also when a parent project's add_subdirectory(lazygen) brought it in.
    get_filename_component(lazygen_dir "${CMAKE_CURRENT_FUNCTION_LIST_DIR}" DIRECTORY)
    set(exe lazygen)
    set(templates_dir "${lazygen_dir}/templates")
    if(NOT arg_OPS)
      set(arg_OPS "${lazygen_dir}/ops.yaml")
    endif()
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/lazygen_kernels/${target}")
  list(JOIN arg_MANIFEST "," manifests)
  _lazygen_kernels_cuda(cuda)
  set(outputs "${dir}/aot_kernels.cpp")
  set(templates aot_kernels.cpp.tmpl aot_kernel.cpp.tmpl)
  set(cuda_flag "")  # empty expands to no argument (a false generator expression would be "")
  if(cuda)
    set(cuda_flag --cuda)
    list(APPEND outputs "${dir}/aot_kernels.cu")
    list(APPEND templates aot_cuda_kernels.cu.tmpl aot_cuda_kernel.cu.tmpl cuda_device_source.cu.tmpl
         pointwise_functor.h.tmpl)
  endif()
  list(TRANSFORM templates PREPEND "${templates_dir}/")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${exe} --kernels "${manifests}" -o "${dir}" --templates "${templates_dir}" --no-format
            ${cuda_flag} ${arg_OPS}
    DEPENDS ${arg_MANIFEST} ${arg_OPS} ${templates} ${exe}
    COMMENT "lazygen: AOT kernels for ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE ${outputs})
  if(cuda)
    target_link_libraries(${target} PRIVATE lazygen::cuda)
    if(LAZYGEN_WERROR)
      set_source_files_properties("${dir}/aot_kernels.cu" PROPERTIES COMPILE_OPTIONS "-Werror=all-warnings")
    endif()
  endif()
  # The kernels' loops are hot: full vectorization (alias checks, epilogues) needs -O3; and the
  # runtime's hot-code options.
  lazygen_hot_code_options(hot)
  set_source_files_properties("${dir}/aot_kernels.cpp" PROPERTIES COMPILE_OPTIONS "-O3;${hot}")
endfunction()

# lazygen_hot_code_options(<out>): the C++ options of every lazygen runtime (lazygen's own and
# those lazygen_add_runtime builds) and of AOT kernels: math without errno (Note [Math without
# errno], runtime/CMakeLists.txt), wrapping integer arithmetic (Note [Integer overflow wraps]) and
# branch alignment (Note [Branch alignment]).
function(lazygen_hot_code_options out)
  lazygen_branch_alignment_options(align)
  set(${out} -fno-math-errno -fno-trapping-math -fwrapv ${align} PARENT_SCOPE)
endfunction()

# lazygen_runtime_compile_options(<target> <runtime source dir> <generated dir>): a runtime
# library's compile options: the hot-code options on its C++ files, and -O3 on the files whose
# loops only vectorize fully there (the generated kernels: eager CPU and tile kernel shards, the
# chain dispatcher; the interpreter's folds).
function(lazygen_runtime_compile_options target runtime_dir generated_dir)
  lazygen_hot_code_options(hot)
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${hot}>")
  set(hot_files "${runtime_dir}/backend/cpu/fusion/interpreter.cpp")
  _lazygen_shard_numbers(shards)
  foreach(k IN LISTS shards)
    list(APPEND hot_files "${generated_dir}/src/cpu_kernels_${k}.cpp" "${generated_dir}/src/tile_kernels_${k}.cpp")
  endforeach()
  # Without TARGET_DIRECTORY the properties would not reach a target made in another directory.
  set_source_files_properties(${hot_files} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "-O3")
  lazygen_chain_dispatch_options(chain)
  set_source_files_properties("${generated_dir}/src/chain_dispatch.cpp" TARGET_DIRECTORY ${target}
                              PROPERTIES COMPILE_OPTIONS "-O3;${chain}")
endfunction()

# Note [Chain dispatcher compile time]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The register-chain dispatcher (generated/src/chain_dispatch.cpp) is one flattened switch over
# every chainable op, compiled for two dtypes and two instruction sets: one very large function.
# GCC's global CSE passes (RTL PRE, load CSE after reload) and variable tracking for the debug
# info are superlinear in a function's size and took most of that unit's compile time, which
# every added or edited chainable op pays (it is the longest unit of bench/rebuild_cost.sh). They
# are off for this one file: it compiles in about half the time, and the chain kernels run as fast
# (fusion_bench chain_16m/interp with the two builds of liblazygen_cpu.so alternating; docs/
# performance.md, `chain-dispatch-options`). The tree-level passes, which do the work on the vector
# code, stay on.
function(lazygen_chain_dispatch_options out)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set(${out} -fno-gcse -fno-gcse-after-reload -fno-var-tracking PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# lazygen_runtime_link_options(<target> <anchor source>): the programs and libraries linking the
# runtime library <target> compile <anchor source> (runtime/linked_registrations.cpp, an INTERFACE
# source): its references keep the registrations that static initializers make (the lazy device,
# the cpu backends), which no program calls by name, in shared and static links alike.
function(lazygen_runtime_link_options target anchor)
  target_sources(${target} INTERFACE "${anchor}")
endfunction()

# Note [Integer overflow wraps]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# PyTorch's integer tensors wrap on overflow (int32 INT_MIN - 2 is INT_MAX - 1, on every device),
# and lazy results must equal eager ones. In C++ signed overflow is undefined, so a kernel
# `self - alpha * other` at T = int32 may do anything there (UBSan flags it; an optimizer may
# assume it away). -fwrapv defines it as two's-complement wrapping for every runtime file, the
# generated kernels and AOT kernels included. (Division of INT_MIN by -1 still traps, as it does in
# PyTorch.)

# Note [Branch alignment]
# ~~~~~~~~~~~~~~~~~~~~~~~
# On Intel cores with the JCC erratum (Skylake through Cascade and Cooper Lake, this project's
# build machines), a jump that crosses or ends on a 32-byte boundary is not cached in the decoded
# uop cache, so a short hot loop whose branch happens to land there runs from the legacy
# decoders, up to ~2x slower. Where it lands depends on code placement, so an unrelated change
# elsewhere moved the fused interpreter's 8-op chain from 5.3 to 10-11 ms (fusion_bench
# chain_16m/interp, same machine, same hour). The assembler can keep jumps off those boundaries
# (a few padding bytes per branch); the runtime and AOT kernels build with it.
# lazygen_branch_alignment_options(<out>): the flags for this compiler and target, or nothing.
function(lazygen_branch_alignment_options out)
  set(flags "")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      set(flags "-Wa,-mbranches-within-32B-boundaries")
    elseif(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      set(flags "-mbranches-within-32B-boundaries")
    endif()
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# Sets <out> to whether lazygen_add_kernels builds CUDA kernels here: lazygen has CUDA and the
# calling project compiles CUDA.
function(_lazygen_kernels_cuda out)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  set(on OFF)
  if(LAZYGEN_HAVE_CUDA AND TARGET lazygen::cuda)
    if("CUDA" IN_LIST languages)
      set(on ON)
    else()
      message(STATUS "lazygen_add_kernels: no CUDA AOT kernels (enable_language(CUDA) to build them)")
    endif()
  endif()
  set(${out} ${on} PARENT_SCOPE)
endfunction()
