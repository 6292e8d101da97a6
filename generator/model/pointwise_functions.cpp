// The table of Note [Pointwise functions].
#include "model/pointwise_functions.h"

namespace lazygen::gen {

const std::vector<PointwiseFunction>& pointwise_function_table() {
  static const std::vector<PointwiseFunction> kTable = {
      // name   arity expensive chainable
      {"exp", 1, true, false},
      {"log", 1, true, false},
      {"sqrt", 1, true, false},
      {"rsqrt", 1, true, false},
      {"tanh", 1, true, false},
      {"sigmoid", 1, true, false},
      {"abs", 1, false, true},
      {"max", 2, false, true},
      {"min", 2, false, true},
      {"where", 3, false, true},
      {"pow", 2, true, false},
  };
  return kTable;
}

const PointwiseFunction* find_pointwise_function(std::string_view name) {
  for (const PointwiseFunction& f : pointwise_function_table()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace lazygen::gen
