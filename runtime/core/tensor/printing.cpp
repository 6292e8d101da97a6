// Tensor printing, matching PyTorch's torch/_tensor_str.py with its default print options
// (precision 4, threshold 1000 elements, 3 edge items, line width 80), so that output can be
// compared with PyTorch's character for character.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "core/tensor/tensor_impl.h"
#include "lazygen/tensor.h"

namespace lazygen {
namespace {

constexpr int kPrecision = 4;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int kLineWidth = 80;
constexpr int kPrefixWidth = 7;  // "tensor("

// A strided cpu view walked by printing: select() drops the leading dim.
struct View {
  const char* data;
  DType dtype;
  const int64_t* sizes;
  const int64_t* strides;
  int64_t dim;

  int64_t size0() const { return sizes[0]; }
  View select(int64_t i) const {
    return {data + i * strides[0] * static_cast<int64_t>(itemsize(dtype)), dtype, sizes + 1,
            strides + 1, dim - 1};
  }
  double value() const {
    return dispatch_dtype(dtype, [&](auto t) {
      return static_cast<double>(*reinterpret_cast<const decltype(t)*>(data));
    });
  }
  int64_t int_value() const {  // exact for int64, unlike value()
    return dispatch_dtype(dtype, [&](auto t) {
      return static_cast<int64_t>(*reinterpret_cast<const decltype(t)*>(data));
    });
  }
};

// The elements printing shows (all, or the edges when summarizing), in print order.
void collect(const View& v, bool summarize, std::vector<View>& out) {
  if (v.dim == 0) {
    out.push_back(v);
    return;
  }
  const int64_t n = v.size0();
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) i = n - kEdgeItems;
    collect(v.select(i), summarize, out);
  }
}

std::string printf_double(const char* format, int precision, double v) {
  char buf[400];  // "%.4f" of 1e308 needs 314 characters
  std::snprintf(buf, sizeof buf, format, precision, v);
  return buf;
}

// PyTorch's _Formatter: one width and one notation for every element of a tensor.
class Formatter {
 public:
  Formatter(DType dtype, const std::vector<View>& shown);
  int width() const { return max_width_; }
  std::string format(const View& element) const;

 private:
  std::string floating(double v) const;
  void scan_floating(const std::vector<View>& shown);

  DType dtype_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  int max_width_ = 1;
};

Formatter::Formatter(DType dtype, const std::vector<View>& shown) : dtype_(dtype) {
  if (is_floating(dtype)) {
    scan_floating(shown);
    return;
  }
  for (const View& e : shown) max_width_ = std::max<int>(max_width_, format(e).size());
}

void Formatter::scan_floating(const std::vector<View>& shown) {
  std::vector<double> finite;  // only non-zero finite values decide the notation
  for (const View& e : shown) {
    const double v = e.value();
    if (std::isfinite(v) && v != 0) finite.push_back(v);
  }
  if (finite.empty()) return;
  double lo = std::abs(finite[0]), hi = lo;
  for (double v : finite) {
    lo = std::min(lo, std::abs(v));
    hi = std::max(hi, std::abs(v));
    if (v != std::ceil(v)) int_mode_ = false;
  }
  sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8 || (!int_mode_ && lo < 1.0e-4);
  for (double v : finite) max_width_ = std::max<int>(max_width_, floating(v).size());
}

// A floating value without padding: "1.5000", "2.", "1.0000e+05", "nan".
std::string Formatter::floating(double v) const {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  if (sci_mode_) return printf_double("%.*e", kPrecision, v);
  if (int_mode_) return printf_double("%.*f", 0, v) + ".";
  return printf_double("%.*f", kPrecision, v);
}

std::string Formatter::format(const View& e) const {
  std::string text;
  if (dtype_ == DType::Bool) {
    text = e.int_value() != 0 ? "True" : "False";
  } else if (is_floating(dtype_)) {
    text = floating(e.value());
  } else {
    text = std::to_string(e.int_value());
  }
  if (static_cast<int>(text.size()) < max_width_) text.insert(0, max_width_ - text.size(), ' ');
  return text;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string vector_str(const View& v, int indent, bool summarize, const Formatter& f) {
  const int per_line = std::max(1, (kLineWidth - indent) / (f.width() + 2));
  std::vector<std::string> items;
  const int64_t n = v.size0();
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
      items.push_back(" ...");
      i = n - kEdgeItems;
    }
    items.push_back(f.format(v.select(i)));
  }
  std::vector<std::string> lines;
  for (size_t i = 0; i < items.size(); i += per_line) {
    const size_t end = std::min(items.size(), i + static_cast<size_t>(per_line));
    lines.push_back(join({items.begin() + i, items.begin() + end}, ", "));
  }
  return "[" + join(lines, ",\n" + std::string(indent + 1, ' ')) + "]";
}

std::string tensor_str(const View& v, int indent, bool summarize, const Formatter& f) {
  if (v.dim == 0) return f.format(v);
  if (v.dim == 1) return vector_str(v, indent, summarize, f);
  std::vector<std::string> slices;
  const int64_t n = v.size0();
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
      slices.push_back("...");
      i = n - kEdgeItems;
    }
    slices.push_back(tensor_str(v.select(i), indent + 1, summarize, f));
  }
  const std::string sep = "," + std::string(v.dim - 1, '\n') + std::string(indent + 1, ' ');
  return "[" + join(slices, sep) + "]";
}

std::string size_tuple(const std::vector<int64_t>& sizes) {
  std::string out = "(";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + (sizes.size() == 1 ? ",)" : ")");
}

std::vector<std::string> suffixes(const Tensor& t, bool empty) {
  std::vector<std::string> out;
  if (!t.device().is_cpu()) out.push_back("device='" + t.device().str() + "'");
  const DType d = t.dtype();
  if (empty && t.dim() != 1) out.push_back("size=" + size_tuple(t.sizes()));
  // int64 and bool are shown by their values; an empty tensor shows every non-float32 dtype.
  const bool implied = d == DType::Float32 || (!empty && (d == DType::Int64 || d == DType::Bool));
  if (!implied) out.push_back("dtype=torch." + std::string(dtype_name(d)));
  return out;
}

// PyTorch's _add_suffixes: a suffix that would pass the line width starts a new line.
std::string add_suffixes(std::string text, const std::vector<std::string>& suffixes) {
  const size_t newline = text.rfind('\n');
  // Mirrors Python's len(s) - s.rfind("\n") + 1, including its value when there is no newline.
  size_t last_line = text.size() + 1 - (newline == std::string::npos ? size_t(-1) : newline);
  for (const auto& suffix : suffixes) {
    if (last_line + suffix.size() + 2 > static_cast<size_t>(kLineWidth)) {
      text += ",\n" + std::string(kPrefixWidth, ' ') + suffix;
      last_line = kPrefixWidth + suffix.size();
    } else {
      text += ", " + suffix;
      last_line += suffix.size() + 2;
    }
  }
  return text + ")";
}

}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  const Tensor cpu = this->cpu();
  const bool empty = cpu.numel() == 0;
  std::string body = "[]";
  if (!empty) {
    const View view{static_cast<const char*>(cpu.raw_data()), cpu.dtype(), cpu.sizes().data(),
                    cpu.strides().data(), cpu.dim()};
    const bool summarize = cpu.numel() > kThreshold;
    std::vector<View> shown;
    collect(view, summarize, shown);
    body = tensor_str(view, kPrefixWidth, summarize, Formatter(cpu.dtype(), shown));
  }
  return add_suffixes("tensor(" + body, suffixes(*this, empty));
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  return os << t.str();
}

}  // namespace lazygen
