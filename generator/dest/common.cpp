// See common.h.
#include "dest/common.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "api/cpp_types.h"
#include "api/names.h"
#include "model/expr_scan.h"

namespace lazygen::gen::dest {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string hex_literal(unsigned v) {
  const char* digits = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), digits[v % 16]);
    v /= 16;
  } while (v != 0);
  return "0x" + out;
}

std::string include_line(const std::string& header) {
  return "#include \"" + header + "\"";
}

std::vector<std::string> include_lines(std::vector<std::string> headers) {
  std::sort(headers.begin(), headers.end());
  headers.erase(std::unique(headers.begin(), headers.end()), headers.end());
  for (std::string& h : headers) h = include_line(h);
  return headers;
}

std::vector<std::string> called_op_includes(const std::vector<OpEntry>& ops,
                                            const std::string& code) {
  std::set<std::string> names;
  for (const OpEntry& op : ops) names.insert(api::api_name(op.schema));
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::vector<std::string> headers;
  for (size_t i = 0; i < code.size();) {
    if (!ident(code[i]) || (i > 0 && ident(code[i - 1]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < code.size() && ident(code[end])) ++end;
    const std::string word = code.substr(i, end - i);
    size_t next = end;
    while (next < code.size() && code[next] == ' ') ++next;
    const bool call = next < code.size() && code[next] == '(';
    const bool member =
        i > 0 && (code[i - 1] == '.' || (i > 1 && code.compare(i - 2, 2, "->") == 0));
    const bool qualified = i > 1 && code.compare(i - 2, 2, "::") == 0;
    const bool ours = !qualified || (i >= 9 && code.compare(i - 9, 9, "lazygen::") == 0);
    if (call && !member && ours && names.count(word)) headers.push_back(op_api_header(word));
    i = end;
  }
  return include_lines(std::move(headers));
}

std::string shape_declaration(const OpEntry& op) {
  api::CppSignature sig =
      api::op_signature(op, api::shape_fn_name(op.schema.name), api::TypeUse::ShapeFn);
  const std::string note = op.has_custom_shape() ? " (hand-written)" : "";
  return "// " + op.func + note + "\n" + sig.declaration();
}

std::string shape_header(const OpEntry& op) {
  return "lazygen/generated/shapes/" + api::op_id(op.schema.name) + ".h";
}

std::string ir_node_header(const OpEntry& op) {
  return "lazygen/generated/ir/" + api::op_id(op.schema.name) + ".h";
}

std::string cpu_kernel_header(const OpEntry& op) {
  return "lazygen/generated/cpu/" + api::op_id(op.schema.name) + ".h";
}

std::string cuda_kernel_header(const OpEntry& op) {
  return "lazygen/generated/cuda/" + api::op_id(op.schema.name) + ".h";
}

std::string record_header(const OpEntry& op) {
  return "lazygen/generated/autograd/" + api::op_id(op.schema.name) + ".h";
}

std::string lazy_op_header(const OpEntry& op) {
  return "lazygen/generated/lazy/" + api::op_id(op.schema.name) + ".h";
}

PointwiseInputs pointwise_inputs(const OpEntry& op) {
  std::set<std::string> used;
  for (const ExprIdent& id : scan_identifiers(*op.pointwise)) {
    if (!id.is_call && !id.is_member) used.insert(id.name);
  }
  PointwiseInputs in;
  for (const Argument& a : op.schema.arguments) {
    if (!used.count(a.name) || (a.kwarg_only && a.is_write())) continue;
    if (a.type.base == BaseType::Tensor) in.tensors.push_back(&a);
    else if (api::is_scalar(a)) in.scalars.push_back(&a);
  }
  return in;
}

// Note [Scaling scalars]: as in PyTorch, a Scalar that scales, thresholds or otherwise parametrizes
// an input (`alpha` and `beta` of add/sub/addmm, `value` of addcmul/fill_, `threshold` of
// threshold_backward, an activation's `negative_slope`, `min_val`/`max_val`, `scale`,
// `input_scale`, lerp's `weight`, hardshrink's `lambd`) takes no part in type promotion:
// add(bool, bool, alpha=2) is bool, and leaky_relu(int64, 0.01) is refused for int64 as PyTorch
// refuses it. Other Scalars are operands (add.Scalar's `other`, pow's `exponent`) and promote as
// wrapped numbers do.
bool promotes(const Argument& scalar) {
  static const char* const kScaling[] = {"alpha",          "beta",    "value",   "threshold",
                                         "negative_slope", "min_val", "max_val", "scale",
                                         "input_scale",    "weight",  "lambd"};
  for (const char* name : kScaling) {
    if (scalar.name == name) return false;
  }
  return true;
}

std::vector<const Argument*> promoting_scalars(const OpEntry& op) {
  std::vector<const Argument*> scalars;
  for (const Argument& a : op.schema.arguments) {
    if (api::is_scalar(a) && promotes(a)) scalars.push_back(&a);
  }
  return scalars;
}

bool is_non_differentiable(const Derivative& d) {
  return d.formula == "non_differentiable";
}

std::vector<const Derivative*> differentiable(const OpEntry& op) {
  std::vector<const Derivative*> out;
  for (const Derivative& d : op.derivatives) {
    if (!is_non_differentiable(d)) out.push_back(&d);
  }
  return out;
}

const Argument* written_argument(const OpEntry& op) {
  for (const Argument& a : op.schema.arguments) {
    if (a.is_write()) return &a;
  }
  return nullptr;
}

std::string shape_call(const OpEntry& op) {
  std::vector<std::string> args;
  for (const Argument& a : op.schema.arguments) {
    std::string name = api::cpp_name(a.name);
    if (a.type.base != BaseType::Tensor) args.push_back(name);
    else if (a.type.is_list) args.push_back("detail::shapes_of(" + name + ")");
    else if (a.type.is_optional()) args.push_back("detail::shape_of(" + name + ")");
    else args.push_back(name + ".shape()");
  }
  return api::shape_fn_name(op.schema.name) + "(" + join(args, ", ") + ")";
}

std::string device_expr(const OpEntry& op) {
  for (const Argument& a : op.schema.arguments) {
    if (a.type.base != BaseType::Tensor || a.type.is_optional()) continue;
    std::string name = api::cpp_name(a.name);
    return a.type.is_list ? "detail::first_device(" + name + ")" : name + ".device()";
  }
  return "kLazy";
}

std::string device_args(const OpEntry& op) {
  std::vector<std::string> args;
  for (const Argument& a : op.schema.arguments) {
    if (a.type.base != BaseType::Tensor) continue;
    const std::string name = api::cpp_name(a.name);
    const bool required = !a.type.is_list && !a.type.is_optional();
    args.push_back(required ? "detail::device_of(" + name + ", \"" + op.schema.name.str() + "\", \"" + a.name + "\")"
                            : "detail::device_of(" + name + ")");
  }
  return "{" + join(args, ", ") + "}";
}

std::string member_name(const Argument& arg) {
  static const std::set<std::string> kNodeNames = {"op", "operands", "shapes", "shape", "num_outputs",
                                                   "node_hash", "dag_hash", "to_string", "attrs_string",
                                                   "can_reuse", "kKind"};
  std::string name = api::cpp_name(arg.name);
  return kNodeNames.count(name) ? name + "_" : name;
}

}  // namespace lazygen::gen::dest
