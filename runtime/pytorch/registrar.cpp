// Registrar (pytorch/registrar.h): the checks of Note [Which ops the device registers].
#include "pytorch/registrar.h"

#include <c10/util/Exception.h>

#include <string_view>

namespace lazygen::pytorch {
namespace {

constexpr const char* kNotPyTorchs = "not a PyTorch op";
constexpr const char* kDecomposed = "PyTorch decomposes it (CompositeImplicitAutograd)";

std::vector<Registration>& records() {
  static std::vector<Registration> r;
  return r;
}

c10::OperatorName operator_name(const std::string& name) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return c10::OperatorName("aten::" + name, "");
  return c10::OperatorName("aten::" + name.substr(0, dot), name.substr(dot + 1));
}

std::string skip_reason(const std::string& name, std::string_view origin,
                        const c10::optional<c10::FunctionSchema>& inferred) {
  const c10::optional<c10::OperatorHandle> op =
      c10::Dispatcher::singleton().findSchema(operator_name(name));
  if (!op) return kNotPyTorchs;
  const bool decomposed =
      op->hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd) &&
      !op->hasKernelForDispatchKey(c10::DispatchKey::Autograd);
  if (origin == kDecomposition) {
    if (!decomposed) return "PyTorch differentiates it (not CompositeImplicitAutograd alone)";
  } else if (decomposed) {
    return kDecomposed;
  }
  if (!inferred) return "";
  if (c10::optional<std::string> diff = c10::findSchemaDifferences(*inferred, op->schema())) {
    return "signature differs from PyTorch's " + c10::toString(op->schema()) + ": " + *diff;
  }
  return "";
}

}  // namespace

void raise_dim_error(const DimError& e) {
  TORCH_CHECK_INDEX(false, "Dimension out of range (expected to be in range of [", e.low(), ", ",
                    e.high(), "], but got ", e.dim(), ")");
}

const std::vector<Registration>& registration_report() {
  return records();
}

bool Registrar::offer(const char* name, const c10::optional<c10::FunctionSchema>& inferred) {
  Registration r{name, origin_, false, skip_reason(name, origin_, inferred)};
  r.registered = r.reason.empty();
  // A derived form PyTorch lacks, decomposes or gives another signature is no gap: it is not
  // recorded.
  if (origin_ == std::string_view(kDerivedForm) && !r.registered) {
    return false;
  }
  records().push_back(r);
  return r.registered;
}

void Registrar::refused(const std::string& why) {
  Registration& r = records().back();
  r.registered = false;
  r.reason = "the dispatcher refused the kernel: " + why;
}

}  // namespace lazygen::pytorch
