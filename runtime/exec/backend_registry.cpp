// The lazy device's named backends (backend_registry.h).
#include "exec/backend_registry.h"

#include <map>
#include <mutex>
#include <stdexcept>

namespace lazygen::exec {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, BackendFactory> factories;
};

Registry& registry() {
  static Registry* r = new Registry();  // leaked: used from static initializers of libraries
  return *r;
}

}  // namespace

void register_backend_factory(const std::string& name, BackendFactory factory) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.factories[name] = factory;
}

std::shared_ptr<Backend> make_registered_backend(const std::string& name) {
  BackendFactory factory = nullptr;
  std::string known = "cpu";  // the lazy device's own name for its cpu backends
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.factories.find(name);
    if (it != r.factories.end()) {
      factory = it->second;
    } else {
      for (const auto& entry : r.factories) known += ", " + entry.first;  // for the error below
    }
  }
  if (factory != nullptr) return factory();
  if (name == "cuda") {
    throw std::runtime_error(
        "no CUDA device: the CUDA backend is not linked into this program (link lazygen_cuda)");
  }
  throw std::invalid_argument("unknown lazy backend '" + name + "' (registered: " + known +
                              "; a backend library registers its name when it is linked)");
}

}  // namespace lazygen::exec
