# LAZYGEN_SANITIZE=address,undefined | thread: instruments every target of this build.
# LAZYGEN_FUZZ=ON (Clang): every target also gets libFuzzer's coverage instrumentation plus ASan and
# UBSan, so that the fuzzers in tests/generator/fuzz/ see into lazygen_model; build only those.
if(LAZYGEN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "LAZYGEN_FUZZ needs Clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++ "
                        "-DCMAKE_C_COMPILER=clang. GCC builds run the same targets as CTest smoke tests.")
  endif()
  if(LAZYGEN_SANITIZE MATCHES "thread")
    message(FATAL_ERROR "LAZYGEN_FUZZ uses address,undefined and cannot be combined with LAZYGEN_SANITIZE=thread")
  endif()
  set(LAZYGEN_SANITIZE "address,undefined")
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>)
endif()

if(LAZYGEN_SANITIZE)
  if(LAZYGEN_SANITIZE MATCHES "thread" AND LAZYGEN_SANITIZE MATCHES "address")
    message(FATAL_ERROR "LAZYGEN_SANITIZE: 'thread' cannot be combined with 'address'")
  endif()
  add_compile_options(-fsanitize=${LAZYGEN_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${LAZYGEN_SANITIZE})
  set(LAZYGEN_SANITIZE_STATUS "${LAZYGEN_SANITIZE}")
else()
  set(LAZYGEN_SANITIZE_STATUS "off")
endif()
if(LAZYGEN_FUZZ)
  string(APPEND LAZYGEN_SANITIZE_STATUS " + libFuzzer (LAZYGEN_FUZZ)")
endif()
