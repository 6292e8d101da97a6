// See samples.h (Note [Op samples]). One reader per kind of value; each error points at the
// offending YAML node and says what to write.
#include "model/samples.h"

#include <charconv>
#include <cstdlib>

#include "model/suggest.h"
#include "model/yaml_node.h"

namespace lazygen::gen {
namespace {

const std::vector<std::string> kDomainNames = {"any", "positive", "nonzero", "bool", "index<N>"};
const std::vector<std::string> kDTypeNames = {"bool", "int32", "int64", "float32", "float64"};
const char* const kTensorHint =
    "write its sizes, e.g. [2, 3], or {shape: [2, 3], domain: positive}";

struct Reader {
  const std::string& path;
  const OpEntry& op;

  [[noreturn]] void fail(const YAML::Node& at, const std::string& message,
                         const std::string& hint) const {
    throw GenError(loc_of(path, at), op.schema.name.str() + ": " + message, hint);
  }

  std::string scalar(const YAML::Node& node, const std::string& what,
                     const std::string& hint) const {
    if (!node.IsScalar()) fail(node, what + " must be a single value, not " + describe(node), hint);
    return node.Scalar();
  }

  int64_t integer(const YAML::Node& node, const std::string& what) const {
    std::string text = scalar(node, what, "write an integer");
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
      fail(node, what + " must be an integer, not '" + text + "'", "write e.g. 2");
    }
    return value;
  }

  ValueDomain domain(const YAML::Node& node) const {
    std::string text = scalar(node, "a domain", suggest_hint("", kDomainNames));
    ValueDomain d;
    d.loc = loc_of(path, node);
    if (text == "any") return d;
    if (text == "positive" || text == "nonzero" || text == "bool") {
      d.kind = text == "positive"  ? ValueDomain::Kind::Positive
               : text == "nonzero" ? ValueDomain::Kind::Nonzero
                                   : ValueDomain::Kind::Bool;
      return d;
    }
    if (text.starts_with("index<") && text.ends_with(">")) {
      std::string bound = text.substr(6, text.size() - 7);
      auto [end, ec] = std::from_chars(bound.data(), bound.data() + bound.size(), d.bound);
      if (ec == std::errc() && end == bound.data() + bound.size() && d.bound >= 1) {
        d.kind = ValueDomain::Kind::Index;
        return d;
      }
      fail(node, "invalid index domain '" + text + "'",
           "write index<N> with N >= 1, e.g. index<3>");
    }
    fail(node, "invalid domain '" + text + "'", suggest_hint(text, kDomainNames));
  }

  std::vector<int64_t> ints(const YAML::Node& node, const std::string& what,
                            const std::string& hint) const {
    if (!node.IsSequence())
      fail(node, what + " must be a list of integers, not " + describe(node), hint);
    std::vector<int64_t> out;
    for (const auto& item : node) out.push_back(integer(item, "an element of " + what));
    return out;
  }

  SampleValue tensor(const YAML::Node& node, const std::string& name) const {
    SampleValue v;
    v.kind = SampleValue::Kind::Tensor;
    v.loc = loc_of(path, node);
    const YAML::Node shape =
        node.IsMap() ? node["shape"] : node;  // (Node's = would assign into it)
    if (node.IsMap() && shape) {
      for (const auto& kv : node) {
        std::string key = kv.first.Scalar();
        if (key == "domain")
          v.domain = domain(kv.second);
        else if (key != "shape")
          fail(kv.first, "unknown key '" + key + "' in tensor '" + name + "'",
               suggest_hint(key, {"shape", "domain"}));
      }
    } else if (!node.IsSequence()) {
      fail(node, "'" + name + "' is a Tensor, not " + describe(node), kTensorHint);
    }
    const std::string what = "the sizes of '" + name + "'";
    if (!shape.IsSequence())
      fail(shape, what + " must be a list of integers, not " + describe(shape), kTensorHint);
    for (const auto& item : shape) {
      v.sizes.push_back(integer(item, "a size of '" + name + "'"));
      if (v.sizes.back() < 0) fail(item, "negative size in '" + name + "'", "sizes are >= 0");
    }
    return v;
  }

  SampleValue number(const YAML::Node& node, const Argument& arg, bool integral_only) const {
    SampleValue v;
    v.loc = loc_of(path, node);
    v.text = scalar(node, "'" + arg.name + "'", "write a number");
    if (v.text == "true" || v.text == "false" || v.text == "True" || v.text == "False") {
      if (arg.type.base != BaseType::Scalar && arg.type.base != BaseType::Bool) {
        fail(node, "'" + arg.name + "' is " + print_type(arg.type) + ", not a bool",
             "write a number");
      }
      v.kind = SampleValue::Kind::Bool;
      v.text = (v.text == "true" || v.text == "True") ? "true" : "false";
      return v;
    }
    if (arg.type.base == BaseType::Bool)
      fail(node, "'" + arg.name + "' is a bool, not '" + v.text + "'", "write true or false");
    int64_t i = 0;
    auto [end, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), i);
    if (ec == std::errc() && end == v.text.data() + v.text.size()) {
      v.kind = SampleValue::Kind::Int;
      return v;
    }
    char* fend = nullptr;
    std::strtod(v.text.c_str(), &fend);
    if (integral_only || v.text.empty() || *fend != '\0' ||
        v.text.find_first_not_of("0123456789+-.eE") != std::string::npos) {  // no inf, nan, hex
      fail(node, "'" + arg.name + "' is " + print_type(arg.type) + ", not '" + v.text + "'",
           integral_only ? "write an integer" : "write a number, e.g. 0.5");
    }
    v.kind = SampleValue::Kind::Float;
    return v;
  }

  SampleValue int_list(const YAML::Node& node, const Argument& arg) const {
    SampleValue v;
    v.kind = SampleValue::Kind::IntList;
    v.loc = loc_of(path, node);
    if (node.IsScalar() && arg.type.list_size) {  // `int[2] stride=1` style: one value for all
      v.sizes.assign(static_cast<size_t>(*arg.type.list_size), integer(node, "'" + arg.name + "'"));
    } else {
      v.sizes = ints(node, "'" + arg.name + "'", "write e.g. [0, 1]");
    }
    return v;
  }

  SampleValue tensor_list(const YAML::Node& node, const Argument& arg) const {
    if (!node.IsSequence())
      fail(node, "'" + arg.name + "' is a Tensor[], not " + describe(node),
           "write a list of tensors, e.g. [[2, 3], [4, 3]]");
    SampleValue v;
    v.kind = SampleValue::Kind::TensorList;
    v.loc = loc_of(path, node);
    for (const auto& item : node) v.tensors.push_back(tensor(item, arg.name));
    return v;
  }

  SampleValue dtype(const YAML::Node& node, const Argument& arg) const {
    SampleValue v;
    v.kind = SampleValue::Kind::ScalarType;
    v.loc = loc_of(path, node);
    v.text = scalar(node, "'" + arg.name + "'", suggest_hint("", kDTypeNames));
    for (const std::string& name : kDTypeNames)
      if (name == v.text) return v;
    fail(node, "invalid dtype '" + v.text + "' for '" + arg.name + "'",
         suggest_hint(v.text, kDTypeNames));
  }

  SampleValue str(const YAML::Node& node, const Argument& arg) const {
    SampleValue v;
    v.kind = SampleValue::Kind::Str;
    v.loc = loc_of(path, node);
    v.text = scalar(node, "'" + arg.name + "'", "write a string");
    if (v.text.find_first_of("\"\\\n") != std::string::npos)
      fail(node, "'" + arg.name + "' may not hold quotes, backslashes or line breaks",
           "write a plain string");
    return v;
  }

  SampleValue value(const YAML::Node& node, const Argument& arg) const {
    const Type& t = arg.type;
    if (node.IsNull() || (node.IsScalar() && node.Scalar() == "None")) {
      if (!t.is_optional())
        fail(node, "'" + arg.name + "' is " + print_type(t) + ", which cannot be None",
             "give it a value");
      SampleValue v;
      v.loc = loc_of(path, node);
      return v;
    }
    const bool is_int = t.base == BaseType::Int || t.base == BaseType::SymInt;
    const bool is_number =
        t.base == BaseType::Float || t.base == BaseType::Bool || t.base == BaseType::Scalar;
    if (t.base == BaseType::Tensor)
      return t.is_list ? tensor_list(node, arg) : tensor(node, arg.name);
    if (is_int) return t.is_list ? int_list(node, arg) : number(node, arg, /*integral_only=*/true);
    if (is_number && !t.is_list) return number(node, arg, /*integral_only=*/false);
    if (t.base == BaseType::ScalarType && !t.is_list) return dtype(node, arg);
    if (t.base == BaseType::Str && !t.is_list) return str(node, arg);
    fail(node, "'" + arg.name + "' has type " + print_type(t) + ", which samples cannot give",
         "leave it out of the sample so that its default is used");
  }

  OpSample sample(const YAML::Node& node) const {
    if (!node.IsMap()) {
      fail(node, "each sample must be a map from argument to value, not " + describe(node),
           "write e.g. '- {self: [2, 3], other: [3]}'");
    }
    OpSample s;
    s.loc = loc_of(path, node);
    std::vector<std::string> names;
    for (const Argument& a : op.schema.arguments) names.push_back(a.name);
    for (const auto& kv : node) {
      std::string name = kv.first.Scalar();
      const Argument* arg = op.schema.find_argument(name);
      if (!arg)
        fail(kv.first, "sample names '" + name + "', which is not an argument of " + op.func,
             suggest_hint(name, names));
      s.values.emplace_back(name, value(kv.second, *arg));
    }
    for (const Argument& a : op.schema.arguments) {
      if (node[a.name] || a.default_value || (a.kwarg_only && a.is_write())) continue;
      fail(node, "sample gives no '" + a.name + "', which has no default",
           "add '" + a.name + ": <value>' to the sample");
    }
    return s;
  }

  void domains(const YAML::Node& node, OpEntry& out) const {
    if (!node.IsMap())
      fail(node, "'domain' must be a map from tensor argument to domain",
           "write e.g. 'domain: {self: positive}'");
    std::vector<std::string> tensors;
    for (const Argument* a : op.schema.tensor_arguments()) tensors.push_back(a->name);
    for (const auto& kv : node) {
      std::string name = kv.first.Scalar();
      const Argument* arg = op.schema.find_argument(name);
      if (!arg || arg->type.base != BaseType::Tensor) {
        fail(kv.first, "domain for '" + name + "', which is not a Tensor argument of " + op.func,
             suggest_hint(name, tensors));
      }
      out.domains.emplace_back(name, domain(kv.second));
    }
  }
};

}  // namespace

void read_test_inputs(const std::string& path, const YAML::Node& entry, OpEntry& op) {
  Reader reader{path, op};
  if (const YAML::Node d = entry["domain"]) reader.domains(d, op);
  if (const YAML::Node s = entry["samples"]) {
    if (!s.IsSequence()) {
      reader.fail(s, "'samples' must be a list of samples",
                  "write e.g.\n    samples:\n      - {self: [2, 3], mat2: [3, 4]}");
    }
    for (const auto& item : s) op.samples.push_back(reader.sample(item));
  }
}

}  // namespace lazygen::gen
