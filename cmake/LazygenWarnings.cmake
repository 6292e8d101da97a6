# lazygen_target_warnings(<target>): -Wall -Wextra everywhere, -Werror when LAZYGEN_WERROR is on.
# Applied per target so that third-party code (gtest, LLVM headers) is never held to our flags.
function(lazygen_target_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${LAZYGEN_WERROR}>>:-Werror>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${LAZYGEN_WERROR}>>:-Werror=all-warnings>)
endfunction()
