// See lazygen/op_info.h. The table itself is generated (generated/src/op_info.cpp).
#include "lazygen/op_info.h"

#include <stdexcept>
#include <string>
#include <unordered_map>

namespace lazygen {

int OpInfo::arg_index(std::string_view arg_name) const {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].name == arg_name) return static_cast<int>(i);
  }
  return -1;
}

const std::vector<OpInfo>& all_ops() {
  return detail::op_info_table();
}

const OpInfo* find_op(std::string_view name) {
  for (const OpInfo& op : all_ops()) {
    if (op.name == name || op.id == name) return &op;
  }
  return nullptr;
}

std::vector<Tensor> call_op(const OpInfo& op, const std::vector<Arg>& args) {
  if (args.size() != op.args.size()) {
    throw std::invalid_argument(std::string(op.name) + ": expected " +
                                std::to_string(op.args.size()) + " arguments, got " +
                                std::to_string(args.size()) + " (" + std::string(op.schema) + ")");
  }
  try {
    return op.call(args);
  } catch (const detail::BadArg& e) {
    const ArgInfo& arg = op.args.at(e.index);
    throw std::invalid_argument(std::string(op.name) + ": argument '" + std::string(arg.name) +
                                "' got " + std::string(arg_type_name(args[e.index])) + " (" +
                                std::string(op.schema) + ")");
  }
}

std::vector<Tensor> call_op(std::string_view name, const std::vector<Arg>& args) {
  const OpInfo* op = find_op(name);
  if (!op) throw std::invalid_argument("no op named '" + std::string(name) + "' in ops.yaml");
  return call_op(*op, args);
}

std::vector<OpInfo> detail::in_order(std::vector<OpInfo> records,
                                     const std::vector<std::string_view>& ids) {
  std::unordered_map<std::string_view, size_t> position;
  for (size_t i = 0; i < ids.size(); ++i) position.emplace(ids[i], i);
  if (records.size() != ids.size() || position.size() != ids.size()) {
    throw std::logic_error("the generated OpInfo table has " + std::to_string(records.size()) +
                           " records for " + std::to_string(ids.size()) + " ops");
  }
  std::vector<OpInfo> out(records.size());
  for (OpInfo& record : records) {
    const auto at = position.find(record.id);
    if (at == position.end()) {
      throw std::logic_error("the generated OpInfo table lists no op " + std::string(record.id));
    }
    out[at->second] = std::move(record);
  }
  return out;
}

std::string_view arg_type_name(const Arg& arg) {
  static constexpr std::string_view kNames[] = {"None",  "Tensor",  "Tensor[]", "Scalar",
                                                "int64", "int64[]", "double",   "bool",
                                                "DType", "string",  "other"};
  static_assert(std::size(kNames) == std::variant_size_v<Arg>);
  return kNames[arg.index()];
}

}  // namespace lazygen
