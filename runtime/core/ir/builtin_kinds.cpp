// The built-in op kind table (builtin_kinds.h), built from the generated op list.
#include "core/ir/builtin_kinds.h"

#include <array>
#include <iterator>

namespace lazygen::ir {
namespace {

constexpr KindNames kBuiltinKinds[] = {
#define LAZYGEN_OP(op_id, schema_name, ClassName) {op_kind(schema_name), schema_name, #ClassName},
#include "lazygen/generated/op_list.inc"
#undef LAZYGEN_OP
    {op_kind("device_data"), "device_data", "DeviceData"},
    {op_kind("scalar_param"), "scalar_param", "ScalarParam"},
};

constexpr bool builtin_kinds_distinct() {
  std::array<OpKind, std::size(kBuiltinKinds)> kinds{};
  for (size_t i = 0; i < kinds.size(); ++i) kinds[i] = kBuiltinKinds[i].kind;
  return kinds_distinct(kinds);
}
static_assert(builtin_kinds_distinct(),
              "two op names of ops.yaml hash to one OpKind: rename one "
              "(See Note [Op kinds] in core/ir/node.h)");

}  // namespace

std::span<const KindNames> builtin_kinds() {
  return kBuiltinKinds;
}

}  // namespace lazygen::ir
