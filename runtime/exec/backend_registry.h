// Named backends for the lazy device: backend libraries register a factory under a name when they
// are linked, from a static initializer ("cpu-fused" by the fused CPU backend, "cuda" by
// lazygen_cuda), and set_lazy_backend (lazygen/lazy.h) makes one by name. The executor knows no
// backend by name; the lazy device picks "cpu-fused", or "cpu-lowering" when fusion is off.
// Thread safety: registration and lookup may run concurrently (one mutex).
#pragma once

#include <memory>
#include <string>

#include "backend/backend.h"

namespace lazygen::exec {

// Makes a backend, or throws std::runtime_error saying why none can be made.
using BackendFactory = std::shared_ptr<Backend> (*)();

// Registers `factory` under `name`, replacing an earlier one.
void register_backend_factory(const std::string& name, BackendFactory factory);

// The registered factory's backend. Throws std::runtime_error "no CUDA device: ..." for "cuda"
// when no library registered it, std::invalid_argument naming the registered ones for another
// unknown name, and whatever the factory throws.
std::shared_ptr<Backend> make_registered_backend(const std::string& name);

}  // namespace lazygen::exec
