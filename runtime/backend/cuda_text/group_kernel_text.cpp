// Writing a group kernel's CUDA source (group_kernel_text.h). See Note [JIT group kernels] and
// Note [Shared CUDA kernel text].
#include "backend/cuda_text/group_kernel_text.h"

#include <algorithm>
#include <stdexcept>

namespace lazygen::cuda {
namespace {

// Written by CMake from runtime/include/lazygen/kernels/pointwise_math.h as one raw string.
constexpr char kPointwiseMath[] =
#include "lazygen_jit/pointwise_math_text.inc"
    ;

struct TypeInfo {
  std::string_view dtype;
  const char* cuda;
  size_t size;
};

constexpr TypeInfo kTypes[] = {{"bool", "bool", 1},
                               {"int32", "int", 4},
                               {"int64", "long long", 8},
                               {"float32", "float", 4},
                               {"float64", "double", 8}};

const TypeInfo& type_info(std::string_view dtype) {
  for (const TypeInfo& t : kTypes) {
    if (t.dtype == dtype) return t;
  }
  throw std::logic_error("cuda: no CUDA type for dtype '" + std::string(dtype) + "'");
}

// The grid-stride loop over both paths; VECTOR_PATH is the vectorized part or nothing,
// ENTRY_PREFIX the entry points' declarator prefix (kNvrtcEntry or kAotEntry).
constexpr const char* kKernelLoop = R"(template <class I>
__device__ void group_kernel(const GroupArgs& a) {
  const I n = static_cast<I>(a.numel);
  const I step = static_cast<I>(blockDim.x) * static_cast<I>(gridDim.x);
  const I first = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
  I tail = 0;
VECTOR_PATH  for (I i = tail + first; i < n; i += step) group_element<I>(a, i);
}
}  // namespace lazygen_group

ENTRY_PREFIXlazygen_group_i32(lazygen_group::GroupArgs a) { lazygen_group::group_kernel<int>(a); }
ENTRY_PREFIXlazygen_group_i64(lazygen_group::GroupArgs a) { lazygen_group::group_kernel<long long>(a); }
)";

constexpr const char* kVectorPath = R"(  if (a.vectorized) {
    const I vectors = n / kVector;
    for (I v = first; v < vectors; v += step) group_vector<I>(a, v * kVector);
    tail = vectors * kVector;
  }
)";

std::string n(const char* prefix, size_t k) {
  return prefix + std::to_string(k);
}

std::string args_struct(const KernelLayout& k) {
  const std::string dims = std::to_string(k.dims);
  std::string s = "struct GroupArgs {\n";
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    s += "  const " + std::string(cuda_type(k.inputs[i].dtype)) + "* " + n("in", i) + ";\n";
  }
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    s += "  " + std::string(cuda_type(k.outputs[o])) + "* " + n("out", o) + ";\n";
  }
  s += "  long long numel;\n  long long sizes[" + dims + "];\n";
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    if (k.inputs[i].access == 'S') s += "  long long " + n("in", i) + "_strides[" + dims + "];\n";
  }
  s += "  double scalars[" + std::to_string(std::max<size_t>(1, k.scalars)) + "];\n";
  return s + "  int vectorized;\n};\n";
}

// group_chain(a, l0.., o0..): the members in order, then the stored values.
std::string chain_function(const KernelLayout& k, const KernelChain& c) {
  std::string s = "__device__ __forceinline__ void group_chain(const GroupArgs& a";
  for (size_t i = 0; i < k.inputs.size(); ++i) s += ", T " + n("l", i);
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    s += ", " + std::string(cuda_type(k.outputs[o])) + "& " + n("o", o);
  }
  s += ") {\n";
  for (size_t j = 0; j < k.scalars; ++j) {
    s += "  const T " + n("s", j) + " = static_cast<T>(a.scalars[" + std::to_string(j) + "]);\n";
  }
  for (size_t op = 0; op < c.ops.size(); ++op) {
    std::string args;
    for (const std::string& arg : c.ops[op].args) args += (args.empty() ? "" : ", ") + arg;
    s += "  const T " + n("v", op) + " = static_cast<T>(lazygen::kernels::" + c.ops[op].functor +
         "{}.template operator()<T>(" + args + "));\n";
  }
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    s += "  " + n("o", o) + " = static_cast<" + cuda_type(k.outputs[o]) + ">(" +
         c.output_values[o] + ");\n";
  }
  return s + "}\n";
}

// Offsets of the strided inputs for linear index i: one division per dim, innermost first.
std::string strided_offsets(const KernelLayout& k) {
  std::string s = "  I rem = i;\n";
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    if (k.inputs[i].access == 'S') s += "  I " + n("off", i) + " = 0;\n";
  }
  for (size_t d = k.dims; d-- > 0;) {
    const std::string size = "static_cast<I>(a.sizes[" + std::to_string(d) + "])";
    s += d > 0 ? "  {\n    const I idx = rem % " + size + ";\n    rem /= " + size + ";\n"
               : "  {\n    const I idx = rem;\n";
    for (size_t i = 0; i < k.inputs.size(); ++i) {
      if (k.inputs[i].access != 'S') continue;
      s += "    " + n("off", i) + " += idx * static_cast<I>(a." + n("in", i) + "_strides[" +
           std::to_string(d) + "]);\n";
    }
    s += "  }\n";
  }
  return s;
}

std::string element_function(const KernelLayout& k) {
  bool strided = false;
  for (const KernelLayout::Input& in : k.inputs) strided |= in.access == 'S';
  std::string s =
      "template <class I>\n__device__ __forceinline__ void group_element(const "
      "GroupArgs& a, I i) {\n";
  if (strided) s += strided_offsets(k);
  std::string call = "  group_chain(a";
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    const char access = k.inputs[i].access;
    const std::string at = access == 'C' ? "i" : access == 'B' ? "0" : n("off", i);
    call += ", static_cast<T>(a." + n("in", i) + "[" + at + "])";
  }
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    s += "  " + std::string(cuda_type(k.outputs[o])) + " " + n("o", o) + ";\n";
    call += ", " + n("o", o);
  }
  s += call + ");\n";
  for (size_t o = 0; o < k.outputs.size(); ++o)
    s += "  a." + n("out", o) + "[i] = " + n("o", o) + ";\n";
  return s + "}\n";
}

// kVector elements at i (a multiple of kVector): one vector load or store per contiguous tensor.
std::string vector_function(const KernelLayout& k) {
  std::string s =
      "template <class I>\n__device__ __forceinline__ void group_vector(const "
      "GroupArgs& a, I i) {\n";
  std::string call = "    group_chain(a";
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    const std::string type = cuda_type(k.inputs[i].dtype);
    if (k.inputs[i].access == 'C') {
      s += "  const Vec<" + type + "> " + n("x", i) + " = *reinterpret_cast<const Vec<" + type +
           ">*>(a." + n("in", i) + " + i);\n";
      call += ", static_cast<T>(" + n("x", i) + ".v[j])";
    } else {
      s += "  const T " + n("x", i) + " = static_cast<T>(a." + n("in", i) + "[0]);\n";
      call += ", " + n("x", i);
    }
  }
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    s += "  Vec<" + std::string(cuda_type(k.outputs[o])) + "> " + n("r", o) + ";\n";
    call += ", " + n("r", o) + ".v[j]";
  }
  s += "#pragma unroll\n  for (int j = 0; j < kVector; ++j) {\n" + call + ");\n  }\n";
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    const std::string type = cuda_type(k.outputs[o]);
    s +=
        "  *reinterpret_cast<Vec<" + type + ">*>(a." + n("out", o) + " + i) = " + n("r", o) + ";\n";
  }
  return s + "}\n";
}

void replace_all(std::string& s, std::string_view marker, std::string_view text) {
  for (size_t at = s.find(marker); at != std::string::npos; at = s.find(marker, at + text.size()))
    s.replace(at, marker.size(), text);
}

std::string kernel_loop(const KernelLayout& k, std::string_view entry) {
  std::string s = kKernelLoop;
  replace_all(s, "VECTOR_PATH", k.vector_width > 1 ? kVectorPath : "");
  replace_all(s, "ENTRY_PREFIX", entry);
  return s;
}

}  // namespace

int vector_width_of(const KernelLayout& layout) {
  size_t widest = 1;
  for (const KernelLayout::Input& in : layout.inputs) {
    if (in.access == 'S') return 1;
    if (in.access == 'C') widest = std::max(widest, type_info(in.dtype).size);
  }
  for (const std::string& o : layout.outputs) widest = std::max(widest, type_info(o).size);
  return static_cast<int>(16 / widest);
}

const char* cuda_type(std::string_view dtype) {
  return type_info(dtype).cuda;
}

std::string group_kernel_body(const KernelLayout& k, const KernelChain& c, std::string_view entry) {
  std::string s = "\nnamespace lazygen_group {\n";
  s += "typedef " + std::string(cuda_type(k.dtype)) + " T;\n";
  s += "constexpr int kVector = " + std::to_string(k.vector_width) + ";\n";
  s += "template <class E>\nstruct alignas(sizeof(E) * kVector) Vec {\n  E v[kVector];\n};\n";
  s += args_struct(k) + chain_function(k, c) + element_function(k);
  if (k.vector_width > 1) s += vector_function(k);
  return s + kernel_loop(k, entry);
}

std::string group_kernel_text(const KernelLayout& k, const KernelChain& c) {
  std::string s(pointwise_math_source());
  for (const std::string& source : c.sources) s += source;
  return s + group_kernel_body(k, c, kNvrtcEntry);
}

std::string_view pointwise_math_source() {
  return {kPointwiseMath, sizeof kPointwiseMath - 1};
}

}  // namespace lazygen::cuda
