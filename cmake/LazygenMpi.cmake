# LAZYGEN_MPI=AUTO|ON|OFF: the MPI engine of lazygen::distributed (runtime/distributed/). AUTO
# builds it when MPI's C++ bindings are found (Debian: libopenmpi-dev; mpirun from openmpi-bin);
# sanitizer builds leave it out (MPI's own allocations are not ours to check). Without it,
# lazygen::distributed still builds, with the single-process "local" engine only.
# Sets LAZYGEN_HAVE_MPI, LAZYGEN_MPIEXEC (the launcher, for the tests) and LAZYGEN_MPI_STATUS.
set(LAZYGEN_HAVE_MPI OFF)
if(NOT LAZYGEN_MPI STREQUAL "OFF")
  find_package(MPI QUIET COMPONENTS CXX)
  if(MPI_CXX_FOUND AND MPIEXEC_EXECUTABLE AND NOT LAZYGEN_SANITIZE)
    set(LAZYGEN_HAVE_MPI ON)
    set(LAZYGEN_MPIEXEC "${MPIEXEC_EXECUTABLE}")
    set(LAZYGEN_MPI_STATUS "on (MPI ${MPI_CXX_VERSION}, ${MPIEXEC_EXECUTABLE})")
  elseif(LAZYGEN_MPI STREQUAL "ON")
    message(FATAL_ERROR "LAZYGEN_MPI=ON but MPI was not found (or this is a sanitizer build).\n"
      "Install it with:  sudo apt-get install -y libopenmpi-dev openmpi-bin\n"
      "(or configure with -DLAZYGEN_MPI=AUTO or OFF)")
  elseif(LAZYGEN_SANITIZE)
    set(LAZYGEN_MPI_STATUS "off: sanitizer builds leave out MPI (LAZYGEN_MPI=AUTO)")
  else()
    set(LAZYGEN_MPI_STATUS "off: MPI not found, install libopenmpi-dev openmpi-bin (LAZYGEN_MPI=AUTO)")
  endif()
else()
  set(LAZYGEN_MPI_STATUS "off (LAZYGEN_MPI=OFF)")
endif()
