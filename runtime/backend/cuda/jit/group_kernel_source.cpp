// Emitting a fusion group's CUDA kernel (group_kernel_source.h). See Note [JIT group kernels].
#include "backend/cuda/jit/group_kernel_source.h"

#include <algorithm>
#include <stdexcept>

#include "backend/cuda/jit/device_functions.h"
#include "backend/cuda_text/group_kernel_text.h"
#include "fusion/group_key.h"
#include "fusion/group_spec.h"

namespace lazygen::cuda {
namespace {

using fusion::GroupSpec;
using Access = GroupKernel::Access;

Access access_of(const std::vector<int64_t>& strides, const std::vector<int64_t>& dims) {
  switch (fusion::load_access(strides, dims)) {
    case 'B':
      return Access::Broadcast;
    case 'S':
      return Access::Strided;
    default:
      return Access::Contiguous;
  }
}

void add_inputs(const GroupSpec& p, GroupKernel& k) {
  const size_t dims = p.dims.size();
  for (size_t l = 0; l < p.loads.size(); ++l) {
    GroupKernel::Input in;
    in.group_input = p.loads[l].input;
    in.offset = p.loads[l].offset;
    in.dtype = p.loads[l].dtype;
    in.strides.assign(p.load_strides.begin() + static_cast<ptrdiff_t>(l * dims),
                      p.load_strides.begin() + static_cast<ptrdiff_t>((l + 1) * dims));
    in.access = access_of(in.strides, p.dims);
    k.inputs.push_back(std::move(in));
  }
}

const DeviceFunction& device_function_of(const exec::Graph& graph, uint32_t node) {
  const DeviceFunction* f = device_function(graph.node(node).op());
  if (f == nullptr) {
    throw std::logic_error(std::string("cuda: no device function for ") +
                           ir::op_kind_name(graph.node(node).op()));
  }
  return *f;
}

// Names loads, op values and Scalars as the group key does (fusion::key_ref).
KernelChain build_chain(const exec::Graph& graph, const GroupSpec& p) {
  KernelChain c;
  for (const GroupSpec::Op& op : p.ops) {
    const DeviceFunction& f = device_function_of(graph, op.node);
    KernelChain::Op out{f.functor, {}};
    for (int j = 0; j < op.num_in; ++j) out.args.push_back(fusion::key_ref(op.in[j]).str());
    for (int j = 0; j < op.num_scalars; ++j) {
      out.args.push_back(fusion::KeyRef{'s', op.scalar[j]}.str());
    }
    c.ops.push_back(std::move(out));
    if (std::find(c.sources.begin(), c.sources.end(), f.source) == c.sources.end()) {
      c.sources.push_back(f.source);
    }
  }
  for (const GroupSpec::Output& o : p.outputs) {
    c.output_values.push_back(fusion::key_ref({false, o.op}).str());
  }
  if (p.has_reduction) c.output_values.push_back(fusion::key_ref(p.reduce_from).str());
  return c;
}

void add_outputs(const GroupSpec& p, GroupKernel& k) {
  for (const GroupSpec::Output& o : p.outputs) k.outputs.push_back({o.node, o.dtype});
  if (p.has_reduction) k.outputs.push_back({p.reduce_node, p.dtype});
  k.reduction_input = p.has_reduction;
}

// The plain description the shared text writer takes (See Note [Shared CUDA kernel text]).
KernelLayout layout_of(const GroupKernel& k) {
  static constexpr char kLetters[] = {'C', 'B', 'S'};
  KernelLayout l;
  l.dtype = dtype_name(k.dtype);
  for (const GroupKernel::Input& in : k.inputs) {
    l.inputs.push_back({std::string(dtype_name(in.dtype)), kLetters[static_cast<int>(in.access)]});
  }
  for (const GroupKernel::Output& o : k.outputs) l.outputs.emplace_back(dtype_name(o.dtype));
  l.dims = k.dims.size();
  l.scalars = k.scalar_nodes.size();
  l.vector_width = vector_width_of(l);
  return l;
}

}  // namespace

GroupKernel emit_group_kernel(const exec::Graph& graph, const fusion::FusionPlan& plan,
                              uint32_t g) {
  const GroupSpec p = fusion::describe_group(graph, plan, g);
  GroupKernel k;
  k.dtype = p.dtype;
  k.numel = p.numel;
  k.dims = p.dims;
  k.scalar_nodes = p.scalar_nodes;
  add_inputs(p, k);
  const KernelChain chain = build_chain(graph, p);
  add_outputs(p, k);
  const KernelLayout layout = layout_of(k);
  k.vector_width = layout.vector_width;
  k.source = group_kernel_text(layout, chain);
  k.key = fusion::cuda_group_key(p);
  return k;
}

}  // namespace lazygen::cuda
