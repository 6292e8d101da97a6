// Every generated CUDA device function compiles through NVRTC to PTX. Needs the NVRTC library,
// not a GPU, so it runs on every machine with the CUDA toolkit. The source handed to NVRTC is
// what the CUDA JIT will use: the include-free pointwise_math.h, the op's functor, and a probe
// kernel instantiating the functor for float and double.
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cuda/jit/device_functions.h"
#include "core/ir/node.h"
#include "fusion/pointwise_facts.h"

namespace lazygen {
namespace {

using cuda::device_functions;
using cuda::DeviceFunction;

std::string read_math_header() {
  std::ifstream in(LAZYGEN_POINTWISE_MATH_H);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A probe kernel per dtype: probe_<n>(T* out, const T* in, const T* s) computes out[0] = fn(in[0],
// ..., s[0], ...) in each of the five compute types the functor's kDTypes holds (See Note
// [Kernel dtypes] in generator/model/kernel_dtypes.h), and nothing in the others, which the
// functor need not compile for.
std::string probe_kernels(const DeviceFunction& f) {
  const fusion::PointwiseFacts* info = fusion::pointwise_facts(f.kind);
  std::string args;
  for (int i = 0; i < info->num_tensors; ++i) args += (args.empty() ? "" : ", ") + std::string("in[") + std::to_string(i) + "]";
  for (int i = 0; i < info->num_scalars; ++i) args += (args.empty() ? "" : ", ") + std::string("s[") + std::to_string(i) + "]";
  const std::string fn = std::string("lazygen::kernels::") + f.functor;
  std::string text = "template <class T, unsigned kBit> __device__ void probe_body(T* out, const T* in, const T* s) {\n"
                     "  if constexpr ((" + fn + "::kDTypes & kBit) != 0) out[0] = (T)" + fn + "().template operator()<T>(" +
                     args + ");\n}\n";
  const char* types[] = {"bool", "int", "long long", "float", "double"};  // DType order
  for (int d = 0; d < 5; ++d) {
    const std::string t = types[d];
    text += "extern \"C\" __global__ void probe_" + std::to_string(d) + "(" + t + "* out, const " + t + "* in, const " + t +
            "* s) { probe_body<" + t + ", " + std::to_string(1u << d) + "u>(out, in, s); }\n";
  }
  return text;
}

std::string compile_log(nvrtcProgram prog) {
  size_t size = 0;
  nvrtcGetProgramLogSize(prog, &size);
  std::string log(size, '\0');
  nvrtcGetProgramLog(prog, log.data());
  return log;
}

TEST(NvrtcSources, EveryGeneratedDeviceFunctionCompilesToPtx) {
  std::string math = read_math_header();
  ASSERT_FALSE(math.empty()) << "cannot read " << LAZYGEN_POINTWISE_MATH_H;
  ASSERT_FALSE(device_functions().empty());
  for (const DeviceFunction& f : device_functions()) {
    std::string source = math + f.source + probe_kernels(f);
    nvrtcProgram prog;
    ASSERT_EQ(nvrtcCreateProgram(&prog, source.c_str(), f.op_id, 0, nullptr, nullptr), NVRTC_SUCCESS);
    const char* options[] = {"--std=c++17", "-arch=compute_90"};
    nvrtcResult result = nvrtcCompileProgram(prog, 2, options);
    EXPECT_EQ(result, NVRTC_SUCCESS) << f.op_id << ":\n" << compile_log(prog);
    size_t ptx_size = 0;
    if (result == NVRTC_SUCCESS) nvrtcGetPTXSize(prog, &ptx_size);
    EXPECT_GT(ptx_size, 0u) << f.op_id;
    nvrtcDestroyProgram(&prog);
  }
}

}  // namespace
}  // namespace lazygen
