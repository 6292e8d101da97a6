// Compile check for the IR node classes lazygen generates from every entry of PyTorch's
// native_functions.yaml (built by tests/generator/stress/CMakeLists.txt, with the generated
// include/ ahead of the repository's, so its op list holds every native op). Including
// ir_nodes.h compiles all of its classes in full: member functions defined in a class are checked
// when the class is, and they instantiate the hashing, comparison and printing helpers for every
// attribute type. The functions below construct and query a sample of classes, one per kind of
// attribute, so that the constructors' and can_reuse()'s argument conversions are checked too.
// This is an object file only: the runtime was built against ops.yaml's op list, not this one, so
// nothing here is linked or run. CI compiles the full header on every build.
#include <array>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lazygen/generated/ir_nodes.h"

namespace lazygen::ir {
namespace {

// Note [Op kinds]: every schema name of native_functions.yaml has its own kind.
constexpr OpKind kNativeKinds[] = {
#define LAZYGEN_OP(op_id, schema_name, ClassName) op_kind(schema_name),
#include "lazygen/generated/op_list.inc"
#undef LAZYGEN_OP
};
static_assert(std::size(kNativeKinds) == LAZYGEN_NATIVE_OP_COUNT);

static_assert(kinds_distinct(std::to_array(kNativeKinds)),
              "two schema names of native_functions.yaml share a kind");
static_assert(AddTensor::kKind == op_kind("add.Tensor"));
static_assert(AddInplaceTensor::kKind == op_kind("add_.Tensor"));
static_assert(RangeOut_::kKind != RangeOut::kKind);

std::vector<Shape> one_shape() {
  return {Shape(DType::Float32, {2, 3})};
}

}  // namespace

// Operands only, Scalars included.
std::string native_sample_operands(const Value& a, const Value& b, const Value& alpha) {
  auto node = std::make_shared<AddTensor>(a, b, alpha, one_shape());
  return node->can_reuse(a, b, alpha) ? node->attrs_string() : node->to_string();
}

// Tensor lists, optional tensors and list attributes.
std::string native_sample_lists(const std::vector<Value>& tensors, const Value& self,
                                const std::vector<Value>& indices) {
  auto cat = std::make_shared<Cat>(tensors, 0, one_shape());
  auto index = std::make_shared<IndexTensor>(self, indices, one_shape());
  auto sum = std::make_shared<SumDimIntlist>(self, std::vector<int64_t>{1}, false, DType::Float64,
                                             one_shape());
  bool reused = cat->can_reuse(tensors, 0) && index->can_reuse(self, indices) &&
                sum->can_reuse(self, std::nullopt, true, std::nullopt);
  return reused ? cat->attrs_string() + index->attrs_string() : sum->attrs_string();
}

// Optional tensors among attributes of every scalar kind.
std::string native_sample_batch_norm(const Value& input, const Value& absent) {
  auto node =
      std::make_shared<NativeBatchNorm>(input, absent, absent, absent, absent, true, 0.1, 1e-5,
                                        std::vector<Shape>{Shape(), Shape(), Shape()});
  return node->attrs_string();
}

// The small value types of lazygen/types.h and names.
std::string native_sample_value_types(const Value& self, const std::shared_ptr<Storage>& storage) {
  auto empty =
      std::make_shared<EmptyMemoryFormat>(std::vector<int64_t>{2}, DType::Float32, Layout::Strided,
                                          kCPU, false, MemoryFormat::Contiguous, one_shape());
  auto bernoulli = std::make_shared<Bernoulli>(self, Generator(42), one_shape());
  auto set = std::make_shared<SetInplaceSourceStorage>(self, storage, one_shape());
  auto stream = std::make_shared<RecordStream>(self, Stream{1}, std::vector<Shape>{});
  auto size = std::make_shared<SizeDimname>(self, "N", std::vector<Shape>{});
  return empty->attrs_string() + bernoulli->attrs_string() + set->attrs_string() +
         stream->attrs_string() + size->attrs_string();
}

}  // namespace lazygen::ir
