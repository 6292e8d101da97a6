// See kernel_dtypes.h.
#include "model/kernel_dtypes.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "model/expr_scan.h"

namespace lazygen::gen {
namespace {

std::vector<std::string> split_words(const char* text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

const std::map<std::string, std::vector<std::string>>& pytorch_table() {
  static const std::map<std::string, std::vector<std::string>> kTable = {
#define LAZYGEN_PYTORCH_DTYPES(name, dtypes) {name, split_words(dtypes)},
#include "model/pytorch_dtypes.inc"
#undef LAZYGEN_PYTORCH_DTYPES
  };
  return kTable;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The expression reads a tensor argument (as dest's pointwise_inputs counts them: out= excluded).
bool reads_a_tensor(const OpEntry& op) {
  if (!op.pointwise) return true;
  for (const ExprIdent& id : scan_identifiers(*op.pointwise)) {
    if (id.is_call || id.is_member) continue;
    const Argument* a = op.schema.find_argument(id.name);
    if (a != nullptr && a->type.base == BaseType::Tensor && !(a->kwarg_only && a->is_write())) return true;
  }
  return false;
}

bool is_floating(const std::string& d) { return d == "float32" || d == "float64"; }

}  // namespace

const std::vector<std::string>& all_dtype_names() {
  static const std::vector<std::string> kNames = {"bool", "int32", "int64", "float32", "float64"};
  return kNames;
}

const std::vector<std::string>* pytorch_dtypes(const std::string& schema_name) {
  auto it = pytorch_table().find(schema_name);
  return it == pytorch_table().end() ? nullptr : &it->second;
}

std::vector<std::string> accepted_dtypes(const OpEntry& op) {
  const std::vector<std::string>* listed = !op.dtypes.empty() ? &op.dtypes : pytorch_dtypes(op.schema.name.str());
  if (listed == nullptr) return all_dtype_names();
  std::vector<std::string> out;
  for (const std::string& d : all_dtype_names()) {
    if (contains(*listed, d)) out.push_back(d);
  }
  return out;
}

bool accepts_every_dtype(const OpEntry& op) { return accepted_dtypes(op).size() == all_dtype_names().size(); }

std::vector<std::string> compute_dtypes(const OpEntry& op) {
  if (!reads_a_tensor(op)) return all_dtype_names();
  std::vector<std::string> accepted = accepted_dtypes(op);
  if (op.dtype != DTypeRule::Float) return accepted;
  std::vector<std::string> mapped, out;
  for (const std::string& d : accepted) mapped.push_back(is_floating(d) ? d : "float32");
  for (const std::string& d : all_dtype_names()) {
    if (contains(mapped, d)) out.push_back(d);
  }
  return out;
}

unsigned dtype_mask(const std::vector<std::string>& dtypes) {
  unsigned mask = 0;
  const std::vector<std::string>& names = all_dtype_names();
  for (const std::string& d : dtypes) {
    mask |= 1u << static_cast<unsigned>(std::find(names.begin(), names.end(), d) - names.begin());
  }
  return mask;
}

unsigned compute_dtype_mask(const OpEntry& op) { return dtype_mask(compute_dtypes(op)); }

}  // namespace lazygen::gen
