# lazygen_target_warnings(<target>): -Wall -Wextra everywhere, -Werror when LAZYGEN_WERROR is on.
# Applied per target so that third-party code (gtest, LLVM headers) is never held to our flags.
#
# GCC 12 reports -Wrestrict on `"literal" + std::string` at -O3 (GCC bug 105329, a false
# positive inside libstdc++): off for GCC 12 so Release builds with LAZYGEN_WERROR stay clean.
function(lazygen_target_warnings target)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
  endif()
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${LAZYGEN_WERROR}>>:-Werror>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${LAZYGEN_WERROR}>>:-Werror=all-warnings>)
endfunction()
