// Compiled into every program and library that links lazygen::cuda (an INTERFACE source of both
// lazygen_cuda targets, backend/cuda and backend/no_cuda): a reference to the cuda device's
// registration, which a static initializer makes and no program calls by name, so that it runs.
// With --as-needed (Debian's default) the linker would otherwise leave liblazygen_cuda.so out of a
// program that calls nothing in it, and a --undefined flag does not keep a shared library.
// See runtime/linked_registrations.cpp for the runtime's own.
extern const bool lazygen_cuda_device_linked;

namespace {

[[gnu::used]] const bool* const kLinkedCudaDevice = &lazygen_cuda_device_linked;

}  // namespace
