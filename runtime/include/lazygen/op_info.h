// OpInfo: every op of ops.yaml as a record a program can inspect and call by name (PyTorch's
// boxed-kernel idea). The table is generated (generated/src/op_info.cpp, from ops.yaml); this
// header holds the types and the lookup.
//
//   const OpInfo* op = find_op("add.Tensor");
//   std::vector<Tensor> out = call_op(*op, {Arg(a), Arg(b), Arg(Scalar(2))});   // = add(a, b, 2)
//
// A call takes one Arg per schema argument, in schema order (out= arguments where the schema
// puts them, i.e. last), and returns the op's result tensors: the one result, each element of a
// tuple, or, for in-place and out= ops, the written tensor itself (the same handle). Omitted
// trailing arguments are not filled in: pass `info.args[i].default_value` where wanted.
//
// Each record also carries what ops.yaml says about the op's inputs for testing (`domain:`,
// `samples:`; see docs/ops-yaml.md): the consistency suite (tests/runtime/consistency) and
// debugging tools build inputs from them. Thread safety: the table is immutable after its first
// use; calls are as thread-safe as the ops they run.
#pragma once

#include <any>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "lazygen/dtype.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen {

// A value of a type with no alternative of its own in Arg (Layout, Generator, bool[3], ...).
struct OtherArg {
  std::any value;
};

// One boxed argument. std::monostate is None (an absent optional). A Scalar argument accepts
// Scalar, int64_t, double or bool; a float argument int64_t or double; everything else its own
// alternative.
using Arg = std::variant<std::monostate, Tensor, std::vector<Tensor>, Scalar, int64_t,
                         std::vector<int64_t>, double, bool, DType, std::string, OtherArg>;

enum class ShapeKind { Same, Broadcast, Reduce, View, Custom };  // ops.yaml `shape:`
enum class DTypeRule { Promote, Bool, Float, Self, Index };      // ops.yaml `dtype:`
enum class OpVariant { Functional, Inplace, Out, Mutable };      // from the schema
enum class ArgKind { Tensor, TensorList, Scalar, Int, IntList, Float, Bool, ScalarType, Other };

// Which values a tensor input may hold (ops.yaml `domain:`): Any, Positive (> 0), Nonzero,
// Bool (a bool tensor whatever the op's dtype), Index (int64 in [0, bound)).
struct Domain {
  enum Kind { Any, Positive, Nonzero, Bool, Index };
  Kind kind = Any;
  int64_t bound = 0;
};

struct ArgInfo {
  std::string_view name;
  ArgKind kind;
  bool optional = false;                            // `T?` / `T[]?`: None is allowed
  bool written = false;                             // `(a!)`: the in-place self or an out= tensor
  bool kwarg_only = false;                          // after `*`
  std::optional<Arg> default_value = std::nullopt;  // the schema default, boxed
  Domain domain = {};                               // ops.yaml `domain:` (tensor arguments)
};

// One input tensor of a sample: its sizes and, if given, its domain (else the argument's).
struct TensorSample {
  std::vector<int64_t> sizes;
  std::optional<Domain> domain = std::nullopt;
};
using SampleValue = std::variant<TensorSample, std::vector<TensorSample>, Arg>;
// One entry of ops.yaml `samples:`: values for some arguments; the others take their defaults
// (out= tensors, which samples may omit, are made by the caller).
struct Sample {
  std::vector<std::pair<std::string_view, SampleValue>> values;
};

struct OpInfo {
  std::string_view name;        // schema name: "add.Tensor"
  std::string_view id;          // op id: "add_tensor"
  std::string_view schema;      // the `func:` string
  std::string_view functional;  // in-place/out= ops: the functional op's name if listed, else ""
  ShapeKind shape;
  DTypeRule dtype;
  OpVariant variant;
  bool pointwise;             // has a `pointwise:` expression (generated kernels)
  unsigned dtypes;            // the dtypes it takes, as dtype_bit()s (See Note [Kernel dtypes])
  std::vector<ArgInfo> args;  // schema order
  int num_outputs;
  std::vector<Sample> samples;                                // ops.yaml `samples:`
  std::vector<Tensor> (*call)(const std::vector<Arg>& args);  // unchecked; use call_op

  int arg_index(std::string_view arg_name) const;  // -1 if absent
};

// Every op of ops.yaml, in file order.
const std::vector<OpInfo>& all_ops();
// By schema name ("add.Tensor") or op id ("add_tensor"); nullptr if none.
const OpInfo* find_op(std::string_view name);
// Calls the op through its API (so it dispatches on the tensors' device and records autograd
// like a direct call). Throws std::invalid_argument for a wrong argument count or an argument
// of the wrong kind, naming the op and the argument.
std::vector<Tensor> call_op(const OpInfo& op, const std::vector<Arg>& args);
std::vector<Tensor> call_op(std::string_view name, const std::vector<Arg>& args);

// "Tensor", "int64", "None", ...: what an Arg holds, for messages.
std::string_view arg_type_name(const Arg& arg);

namespace detail {

// The generated table (generated/src/op_info.cpp, records in op_info_<shard>.cpp).
const std::vector<OpInfo>& op_info_table();
// `records` ordered as `ids` lists their ids (the generated table's shards, in ops.yaml's order).
// Throws std::logic_error when the two do not name the same ops.
std::vector<OpInfo> in_order(std::vector<OpInfo> records, const std::vector<std::string_view>& ids);

// Thrown by unbox; call_op adds the op and argument names.
struct BadArg : std::invalid_argument {
  BadArg(size_t index, const std::string& message) : std::invalid_argument(message), index(index) {}
  size_t index;
};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <class T>
T unbox_value(const Arg& a, size_t index) {
  if constexpr (IsOptional<T>::value) {
    if (std::holds_alternative<std::monostate>(a)) return std::nullopt;
    return T(unbox_value<typename T::value_type>(a, index));
  } else if constexpr (std::is_same_v<T, Scalar>) {
    if (const auto* s = std::get_if<Scalar>(&a)) return *s;
    if (const auto* i = std::get_if<int64_t>(&a)) return Scalar(*i);
    if (const auto* d = std::get_if<double>(&a)) return Scalar(*d);
    if (const auto* b = std::get_if<bool>(&a)) return Scalar(*b);
  } else if constexpr (std::is_same_v<T, double>) {
    if (const auto* d = std::get_if<double>(&a)) return *d;
    if (const auto* i = std::get_if<int64_t>(&a)) return static_cast<double>(*i);
  } else if constexpr (std::is_constructible_v<Arg, std::in_place_type_t<T>, T> &&
                       !std::is_same_v<T, OtherArg>) {
    if (const auto* v = std::get_if<T>(&a)) return *v;
  } else {
    if (const auto* o = std::get_if<OtherArg>(&a)) {
      if (const auto* v = std::any_cast<T>(&o->value)) return *v;
    }
  }
  throw BadArg(index, "argument " + std::to_string(index) + " holds " +
                          std::string(arg_type_name(a)) + ", which does not fit its type");
}

// Generated callers: unbox args[index] as T (the argument's stored C++ type).
template <class T>
T unbox(const std::vector<Arg>& args, size_t index) {
  return unbox_value<T>(args[index], index);
}

// A default or sample value as an Arg: optionals become None or their value; types without an
// alternative go into OtherArg.
template <class T>
Arg box(const T& value) {
  if constexpr (IsOptional<T>::value) {
    return value ? box(*value) : Arg();
  } else if constexpr (std::is_constructible_v<Arg, std::in_place_type_t<T>, T> &&
                       !std::is_same_v<T, OtherArg>) {
    return Arg(std::in_place_type<T>, value);
  } else {
    return Arg(OtherArg{std::any(value)});
  }
}

inline void append_results(std::vector<Tensor>& out, const Tensor& t) {
  out.push_back(t);
}
inline void append_results(std::vector<Tensor>& out, const std::vector<Tensor>& ts) {
  out.insert(out.end(), ts.begin(), ts.end());
}
template <class... Ts>
void append_results(std::vector<Tensor>& out, const std::tuple<Ts...>& t) {
  std::apply([&](const auto&... e) { (append_results(out, e), ...); }, t);
}

// Runs `call` (a lambda calling the op API) and returns its result tensors.
template <class F>
std::vector<Tensor> boxed_results(const F& call) {
  std::vector<Tensor> out;
  if constexpr (std::is_void_v<decltype(call())>) {
    call();
  } else {
    append_results(out, call());
  }
  return out;
}

}  // namespace detail
}  // namespace lazygen
