// The PyTorch device's kernels for an ops file: which ops get derived in-place and out= forms (See
// Note [Derived forms for PyTorch] in generator/dest/torch_kernels.cpp) and what they call.
// Tests run with the source root as working directory (or LAZYGEN_SOURCE_DIR set).
#include <gtest/gtest.h>

#include <string>

#include "dest/emit.h"
#include "model/op_entry.h"
#include "source_root.h"

namespace lazygen::gen::dest {
namespace {

constexpr const char* kOps = R"(
- func: hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor
  shape: same
  pointwise: min(max(self, min_val), max_val)

- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  shape: broadcast
  pointwise: self + alpha * other

- func: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
  shape: broadcast
  pointwise: self + alpha * other

- func: eq.Scalar(Tensor self, Scalar other) -> Tensor
  shape: same
  dtype: bool
  pointwise: self == other

- func: sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  shape: reduce
  kernel: custom

- func: where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
  shape: broadcast
  pointwise: where(condition, self, other)

- func: silu(Tensor self) -> Tensor
  shape: same
  dtype: float
  pointwise: self / (1 + exp(-self))
  torch: none
)";

// Every generated torch_kernels file's text, concatenated.
std::string torch_kernels(const std::string& yaml) {
  OpsFile file = load_ops_text(yaml, "torch_ops.yaml", OpsDialect::Lazygen);
  TemplateDir templates((test_files::source_root() / "templates").string());
  EmitContext ctx{file.ops, templates, "torch_ops.yaml", &file.torch_adapters};
  std::string out;
  for (const GeneratedFile& f : emit_all(ctx)) {
    if (f.path.rfind("src/torch_kernels", 0) == 0) out += f.content;
  }
  return out;
}

TEST(TorchKernels, PointwiseOpsWithoutAnInPlaceEntryGetTheirInPlaceForm) {
  const std::string text = torch_kernels(kOps);
  EXPECT_NE(text.find("derived.add(\"hardtanh_\", TORCH_FN(hardtanh_inplace));"),
            std::string::npos);
  EXPECT_NE(text.find("// hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> "
                      "Tensor(a!)"),
            std::string::npos);
  EXPECT_NE(text.find("return c.write_back(self, lazygen::hardtanh(c.arg(self), c.arg(min_val), "
                      "c.arg(max_val)));"),
            std::string::npos);
  EXPECT_NE(text.find("derived.add(\"eq_.Scalar\", TORCH_FN(eq_inplace_scalar));"),
            std::string::npos);
}

TEST(TorchKernels, PointwiseOpsGetTheirOutFormsUnderPyTorchsOverloadNames) {
  const std::string text = torch_kernels(kOps);
  EXPECT_NE(
      text.find(
          "// hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> "
          "Tensor(a!)"),
      std::string::npos);
  EXPECT_NE(text.find("return c.assign_out(out, lazygen::hardtanh(c.arg(self), c.arg(min_val), "
                      "c.arg(max_val)));"),
            std::string::npos);
  EXPECT_NE(text.find("derived.add(\"eq.Scalar_out\", TORCH_FN(eq_scalar_out));"),
            std::string::npos);
  // A "Tensor" overload's out= form may be either name; PyTorch registers the one it has.
  EXPECT_NE(text.find("derived.add(\"add.Tensor_out\""), std::string::npos);
  EXPECT_NE(text.find("derived.add(\"add.out\""), std::string::npos);
  EXPECT_NE(text.find("derived.add(\"where.self_out\""), std::string::npos);
  EXPECT_EQ(text.find("sum.dim_IntList_out"), std::string::npos);  // not pointwise
}

TEST(TorchKernels, NoInPlaceFormWhereOpsYamlNamesOneOrTheOpIsNotAPointwiseOfSelf) {
  const std::string text = torch_kernels(kOps);
  EXPECT_EQ(text.find("derived.add(\"add_.Tensor\""), std::string::npos);  // its own entry
  EXPECT_NE(text.find("generated.add(\"add_.Tensor\""), std::string::npos);
  EXPECT_EQ(text.find("sum_.dim_IntList"), std::string::npos);  // not pointwise
  EXPECT_EQ(text.find("where_.self"), std::string::npos);       // self is not the first argument
  EXPECT_EQ(text.find("silu_"), std::string::npos);             // torch: none
}

// An adapter's parameters take PyTorch's C++ types: `float[]?` (upsampling's scale_factors) is
// an optional ArrayRef of doubles, `SymInt[]?` an OptionalIntArrayRef.
TEST(TorchKernels, AdaptersTakeOptionalListsAsPyTorchDeclaresThem) {
  OpsFile file = load_ops_text(R"(
- func: upsample_nearest3d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor
  torch: adapter
)",
                               "torch_ops.yaml", OpsDialect::Lazygen);
  TemplateDir templates((test_files::source_root() / "templates").string());
  EmitContext ctx{file.ops, templates, "torch_ops.yaml", &file.torch_adapters};
  std::string header;
  for (const GeneratedFile& f : emit_all(ctx)) {
    if (f.path.find("torch_adapters.h") != std::string::npos) header = f.content;
  }
  EXPECT_NE(header.find("at::OptionalIntArrayRef output_size"), std::string::npos) << header;
  EXPECT_NE(header.find("c10::optional<c10::ArrayRef<double>> scale_factors"), std::string::npos)
      << header;
}

}  // namespace
}  // namespace lazygen::gen::dest
