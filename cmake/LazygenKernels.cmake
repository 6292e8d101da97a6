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
    set(exe lazygen)
    set(templates_dir "${PROJECT_SOURCE_DIR}/templates")
    if(NOT arg_OPS)
      set(arg_OPS "${PROJECT_SOURCE_DIR}/ops.yaml")
    endif()
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/lazygen_kernels/${target}")
  list(JOIN arg_MANIFEST "," manifests)
  add_custom_command(
    OUTPUT "${dir}/aot_kernels.cpp"
    COMMAND ${exe} --kernels "${manifests}" -o "${dir}" --templates "${templates_dir}" --no-format ${arg_OPS}
    DEPENDS ${arg_MANIFEST} ${arg_OPS} "${templates_dir}/aot_kernels.cpp.tmpl"
            "${templates_dir}/aot_kernel.cpp.tmpl" ${exe}
    COMMENT "lazygen: AOT kernels for ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE "${dir}/aot_kernels.cpp")
  # The kernels' loops are hot: full vectorization (alias checks, epilogues) needs -O3; math
  # without errno as in the runtime (Note [Math without errno], runtime/CMakeLists.txt).
  set_source_files_properties("${dir}/aot_kernels.cpp" PROPERTIES
    COMPILE_OPTIONS "-O3;-fno-math-errno;-fno-trapping-math")
endfunction()
