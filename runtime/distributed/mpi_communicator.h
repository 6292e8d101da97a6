// The MPI engine of lazygen::distributed (built when LAZYGEN_MPI finds MPI): a Communicator
// (lazygen/distributed/communicator.h) over a duplicate of MPI_COMM_WORLD.
//
// Each primitive starts the non-blocking MPI collective and polls it until done or until the
// timeout passes, so a rank that stops joining collectives makes the others raise
// CollectiveError instead of hanging (a rank that dies is reported by mpirun, which ends the
// job). MPI errors return codes (MPI_ERRORS_RETURN) that become CollectiveError with MPI's
// message. A timed-out collective stays pending inside MPI: after a CollectiveError the engine
// is unusable and the process should end (distributed::abort).
//
// Thread safety: MPI is initialized with at least MPI_THREAD_SERIALIZED; calls come from any
// thread, one at a time (communicator.h serializes them).
#pragma once

#include <memory>

#include "lazygen/distributed/communicator.h"

namespace lazygen::distributed {

// Initializes MPI unless the program already did (then it also finalizes it), and returns the
// engine. Throws CollectiveError when MPI cannot give MPI_THREAD_SERIALIZED.
std::shared_ptr<Communicator> make_mpi_communicator(double timeout_s);

// MPI's processes on this node (1 without a launcher).
int mpi_local_size();

// Frees the communicator's MPI resources and finalizes MPI if make_mpi_communicator
// initialized it.
void shutdown_mpi();

// MPI_Abort on MPI_COMM_WORLD.
[[noreturn]] void abort_mpi(int code);

}  // namespace lazygen::distributed
