# What `cmake --install` puts where, and the variables lazygen_add_runtime() needs in-tree.
#
#   bin/lazygen                       the generator
#   share/lazygen/templates/          its templates
#   share/lazygen/runtime/            runtime sources, for lazygen_add_runtime() in your project
#   share/lazygen/ops.yaml            lazygen's own ops (start your ops list from it)
#   lib/liblazygen_runtime.so, include/ the runtime prebuilt with lazygen's own ops (lazygen::runtime),
#                                     with its layer libraries (liblazygen_core.so ... liblazygen_ops.so)
#   lib/liblazygen_cuda*.so            cuda tensors and the CUDA lazy backend (lazygen::cuda; the
#                                     no-device stand-in when built without CUDA)
#   lib/liblazygen_data.so             the Fashion-MNIST reader (lazygen::data)
#   lib/liblazygen_distributed.so      data-parallel training (lazygen::distributed; its MPI engine
#                                     when built with MPI, then the config finds MPI too)
#   share/lazygen/consistency/        the consistency suite's sources, for
#                                     lazygen_add_consistency_test() (an out-of-tree backend's check)
#   lib/cmake/lazygen/                find_package(lazygen) config, LazygenGenerate.cmake,
#                                     LazygenConsistency.cmake
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# In-tree use (a parent project's add_subdirectory(lazygen)): cache variables are visible there.
set(_lazygen_runtime_sources "")
foreach(_lib IN LISTS LAZYGEN_RUNTIME_LIBRARIES)
  get_target_property(_lib_sources ${_lib} SOURCES)
  list(APPEND _lazygen_runtime_sources ${_lib_sources})
endforeach()
set(_lazygen_sources "")
foreach(src IN LISTS _lazygen_runtime_sources)
  if(NOT IS_ABSOLUTE "${src}")
    set(src "${PROJECT_SOURCE_DIR}/runtime/${src}")
  endif()
  if(NOT src MATCHES "/generated/")
    list(APPEND _lazygen_sources "${src}")
  endif()
endforeach()
set(LAZYGEN_RUNTIME_SOURCES "${_lazygen_sources}" CACHE INTERNAL "hand-written runtime sources")
set(LAZYGEN_RUNTIME_SOURCE_DIR "${PROJECT_SOURCE_DIR}/runtime" CACHE INTERNAL "")
set(LAZYGEN_TEMPLATE_DIR "${PROJECT_SOURCE_DIR}/templates" CACHE INTERNAL "")
set(LAZYGEN_CONSISTENCY_DIR "${PROJECT_SOURCE_DIR}/tests" CACHE INTERNAL "the consistency suite's root")
set(LAZYGEN_EXECUTABLE lazygen CACHE INTERNAL "the lazygen target (replaced by its path in commands)")
set(LAZYGEN_OPS_YAML "${PROJECT_SOURCE_DIR}/ops.yaml" CACHE INTERNAL "lazygen's own ops")
set(LAZYGEN_HOOK_CHECK_AVAILABLE ${LAZYGEN_HOOK_CHECKER} CACHE INTERNAL "")
set(LAZYGEN_VERSION_STRING ${PROJECT_VERSION} CACHE INTERNAL "")
set(LAZYGEN_HAVE_CUDA ${LAZYGEN_HAVE_CUDA} CACHE INTERNAL "lazygen::cuda is the CUDA backend")

# Installed layout.
install(TARGETS lazygen RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY templates/ DESTINATION ${CMAKE_INSTALL_DATADIR}/lazygen/templates)
install(DIRECTORY runtime/ DESTINATION ${CMAKE_INSTALL_DATADIR}/lazygen/runtime
        FILES_MATCHING PATTERN "*.h" PATTERN "*.cpp" PATTERN "*.inc")
install(FILES ops.yaml .clang-format DESTINATION ${CMAKE_INSTALL_DATADIR}/lazygen)
# The consistency suite, in the layout its includes expect (lazygen_add_consistency_test).
install(FILES tests/runtime/consistency/op_consistency_test.cpp tests/runtime/consistency/op_inputs.cpp
              tests/runtime/consistency/op_inputs.h
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lazygen/consistency/runtime/consistency)
install(FILES tests/runtime/distributed/local_world.h
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lazygen/consistency/runtime/distributed)
install(DIRECTORY runtime/include/ generated/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Internal headers the public ones and generated code include ("core/...", "exec/...").
install(DIRECTORY runtime/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "include" EXCLUDE)
# The documented targets keep one name in-tree (their ALIAS) and installed (EXPORT_NAME under the
# lazygen:: namespace): lazygen::runtime, lazygen::cuda, lazygen::data and lazygen::distributed.
# The others are exported only as what those link.
set(_lazygen_documented runtime cuda data)
if(TARGET lazygen_distributed)
  list(APPEND _lazygen_documented distributed)
endif()
# The runtime's layer libraries below lazygen_runtime (Note [Runtime layers] in
# runtime/CMakeLists.txt) are exported as what lazygen::runtime links.
set(_lazygen_exported lazygen_blas ${LAZYGEN_RUNTIME_LIBRARIES})
list(REMOVE_ITEM _lazygen_exported lazygen_runtime)
foreach(_name IN LISTS _lazygen_documented)
  set_target_properties(lazygen_${_name} PROPERTIES EXPORT_NAME ${_name})
  if(NOT TARGET lazygen::${_name})
    message(FATAL_ERROR "lazygen_${_name} has no ALIAS lazygen::${_name} (documented in "
                        "cmake/lazygenConfig.cmake.in and README.md)")
  endif()
  list(APPEND _lazygen_exported lazygen_${_name})
endforeach()
if(LAZYGEN_HAVE_CUDA)
  list(APPEND _lazygen_exported lazygen_cuda_jit lazygen_cuda_kernels lazygen_cuda_text)
endif()
# The shared libraries find each other beside themselves (Note [Shared libraries]).
set_target_properties(${_lazygen_exported} PROPERTIES INSTALL_RPATH "$ORIGIN")
install(TARGETS ${_lazygen_exported} EXPORT lazygenTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT lazygenTargets NAMESPACE lazygen:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lazygen)
configure_package_config_file(cmake/lazygenConfig.cmake.in
  "${PROJECT_BINARY_DIR}/lazygenConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lazygen
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_DATADIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/lazygenConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/lazygenConfig.cmake" "${PROJECT_BINARY_DIR}/lazygenConfigVersion.cmake"
              cmake/LazygenGenerate.cmake cmake/LazygenKernels.cmake cmake/LazygenOpenBlas.cmake cmake/LazygenConsistency.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lazygen)
