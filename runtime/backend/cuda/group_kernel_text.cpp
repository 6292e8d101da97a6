// Writing a group kernel's CUDA source (group_kernel_text.h). See Note [JIT group kernels].
#include "backend/cuda/group_kernel_text.h"

#include <algorithm>
#include <stdexcept>

#include "backend/cuda/device_functions.h"

namespace lazygen::cuda {
namespace {

using Access = GroupKernel::Access;

// The grid-stride loop over both paths; VECTOR_PATH is the vectorized part or nothing.
constexpr const char* kKernelLoop = R"(template <class I>
__device__ void group_kernel(const GroupArgs& a) {
  const I n = static_cast<I>(a.numel);
  const I step = static_cast<I>(blockDim.x) * static_cast<I>(gridDim.x);
  const I first = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
  I tail = 0;
VECTOR_PATH  for (I i = tail + first; i < n; i += step) group_element<I>(a, i);
}
}  // namespace lazygen_group

extern "C" __global__ void lazygen_group_i32(lazygen_group::GroupArgs a) { lazygen_group::group_kernel<int>(a); }
extern "C" __global__ void lazygen_group_i64(lazygen_group::GroupArgs a) { lazygen_group::group_kernel<long long>(a); }
)";

constexpr const char* kVectorPath = R"(  if (a.vectorized) {
    const I vectors = n / kVector;
    for (I v = first; v < vectors; v += step) group_vector<I>(a, v * kVector);
    tail = vectors * kVector;
  }
)";

const char* cuda_type(DType t) {
  switch (t) {
    case DType::Bool:
      return "bool";
    case DType::Int32:
      return "int";
    case DType::Int64:
      return "long long";
    case DType::Float32:
      return "float";
    case DType::Float64:
      return "double";
  }
  throw std::logic_error("cuda: a dtype without a CUDA type");
}

std::string n(const char* prefix, size_t k) {
  return prefix + std::to_string(k);
}

std::string args_struct(const GroupKernel& k) {
  const std::string dims = std::to_string(k.dims.size());
  std::string s = "struct GroupArgs {\n";
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    s += "  const " + std::string(cuda_type(k.inputs[i].dtype)) + "* " + n("in", i) + ";\n";
  }
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    s += "  " + std::string(cuda_type(k.outputs[o].dtype)) + "* " + n("out", o) + ";\n";
  }
  s += "  long long numel;\n  long long sizes[" + dims + "];\n";
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    if (k.inputs[i].access == Access::Strided)
      s += "  long long " + n("in", i) + "_strides[" + dims + "];\n";
  }
  s += "  double scalars[" + std::to_string(std::max<size_t>(1, k.scalar_nodes.size())) + "];\n";
  return s + "  int vectorized;\n};\n";
}

// group_chain(a, l0.., o0..): the members in order, then the stored values.
std::string chain_function(const GroupKernel& k, const KernelChain& c) {
  std::string s = "__device__ __forceinline__ void group_chain(const GroupArgs& a";
  for (size_t i = 0; i < k.inputs.size(); ++i) s += ", T " + n("l", i);
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    s += ", " + std::string(cuda_type(k.outputs[o].dtype)) + "& " + n("o", o);
  }
  s += ") {\n";
  for (size_t j = 0; j < k.scalar_nodes.size(); ++j) {
    s += "  const T " + n("s", j) + " = static_cast<T>(a.scalars[" + std::to_string(j) + "]);\n";
  }
  for (size_t op = 0; op < c.ops.size(); ++op) {
    std::string args;
    for (const std::string& arg : c.ops[op].args) args += (args.empty() ? "" : ", ") + arg;
    s += "  const T " + n("v", op) + " = static_cast<T>(lazygen::kernels::" + c.ops[op].functor +
         "{}.template operator()<T>(" + args + "));\n";
  }
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    s += "  " + n("o", o) + " = static_cast<" + cuda_type(k.outputs[o].dtype) + ">(" +
         c.output_values[o] + ");\n";
  }
  return s + "}\n";
}

// Offsets of the strided inputs for linear index i: one division per dim, innermost first.
std::string strided_offsets(const GroupKernel& k) {
  std::string s = "  I rem = i;\n";
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    if (k.inputs[i].access == Access::Strided) s += "  I " + n("off", i) + " = 0;\n";
  }
  for (size_t d = k.dims.size(); d-- > 0;) {
    const std::string size = "static_cast<I>(a.sizes[" + std::to_string(d) + "])";
    s += d > 0 ? "  {\n    const I idx = rem % " + size + ";\n    rem /= " + size + ";\n"
               : "  {\n    const I idx = rem;\n";
    for (size_t i = 0; i < k.inputs.size(); ++i) {
      if (k.inputs[i].access != Access::Strided) continue;
      s += "    " + n("off", i) + " += idx * static_cast<I>(a." + n("in", i) + "_strides[" +
           std::to_string(d) + "]);\n";
    }
    s += "  }\n";
  }
  return s;
}

std::string element_function(const GroupKernel& k) {
  bool strided = false;
  for (const GroupKernel::Input& in : k.inputs) strided |= in.access == Access::Strided;
  std::string s =
      "template <class I>\n__device__ __forceinline__ void group_element(const "
      "GroupArgs& a, I i) {\n";
  if (strided) s += strided_offsets(k);
  std::string call = "  group_chain(a";
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    const Access access = k.inputs[i].access;
    const std::string at = access == Access::Contiguous  ? "i"
                           : access == Access::Broadcast ? "0"
                                                         : n("off", i);
    call += ", static_cast<T>(a." + n("in", i) + "[" + at + "])";
  }
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    s += "  " + std::string(cuda_type(k.outputs[o].dtype)) + " " + n("o", o) + ";\n";
    call += ", " + n("o", o);
  }
  s += call + ");\n";
  for (size_t o = 0; o < k.outputs.size(); ++o)
    s += "  a." + n("out", o) + "[i] = " + n("o", o) + ";\n";
  return s + "}\n";
}

// kVector elements at i (a multiple of kVector): one vector load or store per contiguous tensor.
std::string vector_function(const GroupKernel& k) {
  std::string s =
      "template <class I>\n__device__ __forceinline__ void group_vector(const "
      "GroupArgs& a, I i) {\n";
  std::string call = "    group_chain(a";
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    const std::string type = cuda_type(k.inputs[i].dtype);
    if (k.inputs[i].access == Access::Contiguous) {
      s += "  const Vec<" + type + "> " + n("x", i) + " = *reinterpret_cast<const Vec<" + type +
           ">*>(a." + n("in", i) + " + i);\n";
      call += ", static_cast<T>(" + n("x", i) + ".v[j])";
    } else {
      s += "  const T " + n("x", i) + " = static_cast<T>(a." + n("in", i) + "[0]);\n";
      call += ", " + n("x", i);
    }
  }
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    s += "  Vec<" + std::string(cuda_type(k.outputs[o].dtype)) + "> " + n("r", o) + ";\n";
    call += ", " + n("r", o) + ".v[j]";
  }
  s += "#pragma unroll\n  for (int j = 0; j < kVector; ++j) {\n" + call + ");\n  }\n";
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    const std::string type = cuda_type(k.outputs[o].dtype);
    s +=
        "  *reinterpret_cast<Vec<" + type + ">*>(a." + n("out", o) + " + i) = " + n("r", o) + ";\n";
  }
  return s + "}\n";
}

std::string kernel_loop(const GroupKernel& k) {
  std::string s = kKernelLoop;
  const std::string marker = "VECTOR_PATH";
  s.replace(s.find(marker), marker.size(), k.vector_width > 1 ? kVectorPath : "");
  return s;
}

}  // namespace

std::string group_kernel_text(const GroupKernel& k, const KernelChain& c) {
  std::string s(pointwise_math_source());
  for (const char* source : c.sources) s += source;
  s += "\nnamespace lazygen_group {\n";
  s += "typedef " + std::string(cuda_type(k.dtype)) + " T;\n";
  s += "constexpr int kVector = " + std::to_string(k.vector_width) + ";\n";
  s += "template <class E>\nstruct alignas(sizeof(E) * kVector) Vec {\n  E v[kVector];\n};\n";
  s += args_struct(k) + chain_function(k, c) + element_function(k);
  if (k.vector_width > 1) s += vector_function(k);
  return s + kernel_loop(k);
}

}  // namespace lazygen::cuda
