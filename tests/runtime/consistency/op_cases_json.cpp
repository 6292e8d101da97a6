// op_cases_json: the consistency suite's cases (op_inputs.h) written as JSON, so that suites in
// other languages run every op on exactly these inputs: the PyTorch device's differential test
// (tests/pytorch/test_ops.py) compares lazygen's device with PyTorch's CPU on them.
//
//   op_cases_json [OP ...]     (default: every op of ops.yaml)
//
// Output: {"<op name>": {"functional": "<its functional op, for out= and in-place ops, or "">",
//                       "primary": "float32" (the dtype it must compute in: primary_dtype),
//                       "cases": [{"dtypes": "float32", "label": "broadcast", "args": [ARG, ...]}]}}
// with one ARG per schema argument:
//   {"tensor": {"dtype": "float32", "sizes": [3, 4], "values": [...], "layout": "transposed",
//               "expand_to": [...]}}        values row-major before the layout is applied
//   {"tensors": [TENSOR, ...]}              a Tensor[] argument
//   {"out": true}                           an out= tensor the runner makes
//   {"none": true} | {"int": 2} | {"ints": [0, 1]} | {"float": 0.5} | {"bool": true} |
//   {"scalar": 2.0, "kind": "float"} | {"dtype": "float64"} | {"str": "..."} |
//   {"default": true}                       a value of a type JSON cannot carry: the default
// Large cases (both threads) are left out. Exits non-zero when an op's cases cannot be made.
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "lazygen/op_info.h"
#include "op_inputs.h"

namespace lazygen::testing {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

std::string ints(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out + "]";
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

std::string tensor_json(const InputTensor& t) {
  static const char* const kLayouts[] = {"contiguous", "transposed", "sliced", "expanded"};
  const Tensor values = t.values().to(DType::Float64).contiguous();
  std::string out = "{\"dtype\":" + quoted(std::string(dtype_name(t.values().dtype()))) +
                    ",\"sizes\":" + ints(t.values().sizes()) + ",\"values\":[";
  const double* p = values.data_ptr<double>();
  for (int64_t i = 0; i < values.numel(); ++i) out += (i ? "," : "") + number(p[i]);
  out += "],\"layout\":" + quoted(kLayouts[static_cast<int>(t.layout())]);
  return out + ",\"expand_to\":" + ints(t.expand_to()) + "}";
}

std::string scalar_json(const Scalar& s) {
  const char* kind = s.is_bool() ? "bool" : s.is_integral() ? "int" : "float";
  return "{\"scalar\":" + number(s.to<double>()) + ",\"kind\":\"" + kind + "\"}";
}

std::string arg_json(const Arg& a) {
  if (std::holds_alternative<std::monostate>(a)) return "{\"none\":true}";
  if (const auto* s = std::get_if<Scalar>(&a)) return scalar_json(*s);
  if (const auto* i = std::get_if<int64_t>(&a)) return "{\"int\":" + std::to_string(*i) + "}";
  if (const auto* v = std::get_if<std::vector<int64_t>>(&a)) return "{\"ints\":" + ints(*v) + "}";
  if (const auto* d = std::get_if<double>(&a)) return "{\"float\":" + number(*d) + "}";
  if (const auto* b = std::get_if<bool>(&a)) return std::string("{\"bool\":") + (*b ? "true" : "false") + "}";
  if (const auto* t = std::get_if<DType>(&a)) return "{\"dtype\":" + quoted(std::string(dtype_name(*t))) + "}";
  if (const auto* s = std::get_if<std::string>(&a)) return "{\"str\":" + quoted(*s) + "}";
  return "{\"default\":true}";
}

std::string value_json(const std::optional<InputValue>& v) {
  if (!v) return "{\"out\":true}";
  if (const auto* t = std::get_if<InputTensor>(&*v)) return "{\"tensor\":" + tensor_json(*t) + "}";
  if (const auto* list = std::get_if<std::vector<InputTensor>>(&*v)) {
    std::string out = "{\"tensors\":[";
    for (size_t i = 0; i < list->size(); ++i) out += (i ? "," : "") + tensor_json((*list)[i]);
    return out + "]}";
  }
  return arg_json(std::get<Arg>(*v));
}

std::string op_json(const OpInfo& op) {
  std::string out;
  for (const DTypeSets& d : dtype_sets(op)) {
    for (const std::vector<DType>& dtypes : d.sets) {
      for (const OpCase& c : make_cases(op, dtypes, /*large=*/false)) {
        out += out.empty() ? "" : ",";
        out += "\n  {\"dtypes\":" + quoted(d.label) + ",\"label\":" + quoted(c.label) + ",\"args\":[";
        for (size_t i = 0; i < c.args.size(); ++i) out += (i ? "," : "") + value_json(c.args[i]);
        out += "]}";
      }
    }
  }
  return "{\"functional\":" + quoted(std::string(op.functional)) + ",\"primary\":" + quoted(primary_dtype(op)) +
         ",\"cases\":[" + out + "]}";
}

}  // namespace
}  // namespace lazygen::testing

int main(int argc, char** argv) {
  using namespace lazygen;
  std::vector<const OpInfo*> ops;
  for (int i = 1; i < argc; ++i) {
    const OpInfo* op = find_op(argv[i]);
    if (op == nullptr) {
      std::cerr << "op_cases_json: no op '" << argv[i] << "' in ops.yaml\n";
      return 2;
    }
    ops.push_back(op);
  }
  if (ops.empty()) {
    for (const OpInfo& op : all_ops()) ops.push_back(&op);
  }
  try {
    std::ostringstream out;
    out << "{";
    for (size_t i = 0; i < ops.size(); ++i)
      out << (i ? ",\n" : "\n") << "\"" << ops[i]->name << "\": " << testing::op_json(*ops[i]);
    out << "\n}\n";
    std::cout << out.str();
  } catch (const std::exception& e) {
    std::cerr << "op_cases_json: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
