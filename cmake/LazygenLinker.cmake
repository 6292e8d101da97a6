# Note [Linker]
# ~~~~~~~~~~~~
# Every rebuild ends in links: the layer libraries an edit touched, the PyTorch module, the programs
# whose case list is the op set. GNU ld spends most of a link on the debug info of a RelWithDebInfo
# build; LLD links the same objects several times faster (docs/performance.md, `link-torch-module`;
# bench/rebuild_cost.sh measures the whole rebuild). LAZYGEN_LINKER=AUTO (the default) links C and
# C++ targets with LLD (Debian's `lld`, which scripts/setup installs) when the compiler accepts
# -fuse-ld=lld, else with the compiler's default linker; DEFAULT keeps the default; LLD requires
# LLD. The libraries and programs are the same either way (--no-undefined, --as-needed and the
# registrations' anchors behave alike). CUDA links (nvcc as the driver) keep nvcc's default.
set(LAZYGEN_LINKER "AUTO" CACHE STRING "The linker of C and C++ targets: AUTO (LLD when found), LLD, DEFAULT")
set_property(CACHE LAZYGEN_LINKER PROPERTY STRINGS AUTO LLD DEFAULT)
if(LAZYGEN_LINKER STREQUAL "DEFAULT")
  set(LAZYGEN_LINKER_STATUS "the compiler's default (LAZYGEN_LINKER=DEFAULT)")
else()
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" LAZYGEN_HAVE_LLD)
  if(LAZYGEN_HAVE_LLD)
    add_link_options($<$<LINK_LANGUAGE:C,CXX>:-fuse-ld=lld>)
    set(LAZYGEN_LINKER_STATUS "LLD")
  elseif(LAZYGEN_LINKER STREQUAL "LLD")
    message(FATAL_ERROR "LAZYGEN_LINKER=LLD: the compiler cannot link with -fuse-ld=lld (apt-get install lld)")
  else()
    set(LAZYGEN_LINKER_STATUS "the compiler's default: LLD not found (apt-get install lld)")
  endif()
endif()
