# lazygen_add_consistency_test(<name> BACKEND <backend> [RUNTIME <target>] [SOURCES <file>...]
#                              [LIBS <target>...])
#
# lazygen's consistency suite (tests/runtime/consistency/op_consistency_test.cpp: every op of the
# runtime's op table, eager on the cpu against the lazy device, per dtype and case) as the program
# <name>, with the lazy device on the backend registered under the name <backend>, and a CTest test
# <name> that runs it. It is how a backend built outside lazygen checks itself (docs/backends.md):
#
#   lazygen_add_consistency_test(my_backend_consistency BACKEND my-backend SOURCES my_backend.cpp)
#
# SOURCES are compiled into the program (a backend's sources: object files, so the static
# initializer that registers the backend runs); LIBS are linked besides RUNTIME, the runtime whose
# ops are checked (default lazygen::runtime). Needs GoogleTest (Debian: libgtest-dev). Works
# in-tree (add_subdirectory(lazygen)) and after find_package(lazygen): the suite's sources are
# installed to share/lazygen/consistency/ (LAZYGEN_CONSISTENCY_DIR).
function(lazygen_add_consistency_test name)
  cmake_parse_arguments(arg "" "BACKEND;RUNTIME" "SOURCES;LIBS" ${ARGN})
  if(NOT arg_BACKEND)
    message(FATAL_ERROR "lazygen_add_consistency_test(${name}): BACKEND <registered name> is required")
  endif()
  if(NOT arg_RUNTIME)
    set(arg_RUNTIME lazygen::runtime)
  endif()
  if(NOT TARGET GTest::gtest_main)
    find_package(GTest)
    if(NOT GTest_FOUND)
      message(FATAL_ERROR "lazygen_add_consistency_test needs GoogleTest.\n"
                          "Install it with:  sudo apt-get install -y libgtest-dev")
    endif()
  endif()
  set(kit "${LAZYGEN_CONSISTENCY_DIR}")
  add_executable(${name} "${kit}/runtime/consistency/op_consistency_test.cpp"
                         "${kit}/runtime/consistency/op_inputs.cpp" ${arg_SOURCES})
  target_include_directories(${name} PRIVATE "${kit}")
  target_link_libraries(${name} PRIVATE ${arg_RUNTIME} ${arg_LIBS} GTest::gtest GTest::gtest_main)
  add_test(NAME ${name} COMMAND ${name} --gtest_brief=1)
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "LAZYGEN_LAZY_BACKEND=${arg_BACKEND}")
endfunction()
