// In-place writes through views while PyTorch's autograd records them (Note [Writes through views
// under autograd]).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/ArrayRef.h>

namespace lazygen::pytorch {

// Note [Writes through views under autograd]
// PyTorch's autograd records an in-place op on a view, when the view or a value written requires
// grad, as CopySlices on the view's base. Its backward finds the view's elements in the base's
// gradient by base.as_strided(view.sizes(), view.strides(), view.storage_offset()), with the
// geometry the view reported when the op ran: PyTorch 1.13 replays the view ops instead only for
// devices it knows to lack strides (XLA, Lazy), not for PrivateUse1. Device tensors report
// contiguous strides and no offset (Note [Device tensors]), which would pick the wrong elements:
// a silently wrong gradient. So before such a write the view reports its true geometry in its
// root: the root's element positions go through the view's chain (lazy::view_positions, replayed
// on the cpu: nothing syncs) and, when they are strided, give the strides and the offset;
// as_strided on the device is a view (adapters/views.cpp) that reads and writes exactly those
// elements of a tensor that is not a view. A view whose elements are not strided in its root (a
// reshape of a transposed view), or whose autograd base is not its lazygen root, refuses the write
// instead.
//
// Makes device tensor `self`, about to be written in place by `op` reading `sources`, report its
// true geometry when autograd will record the write through it; throws c10::Error when it
// cannot. No effect outside grad mode or when no tensor involved requires grad.
void prepare_write_through_view(const char* op, const at::Tensor& self,
                                c10::ArrayRef<const at::Tensor*> sources);

}  // namespace lazygen::pytorch
