// See tile_kernels.h.
#include "backend/cpu/fusion/tile_kernels.h"

namespace lazygen::cpu {

TileFn PointwiseInfo::for_dtype(DType t) const {
  switch (t) {
    case DType::Float32: return float32;
    case DType::Float64: return float64;
    case DType::Int64: return int64;
    case DType::Int32: return int32;
    case DType::Bool: break;
  }
  return nullptr;  // bool groups compute in a wider type; see the interpreter
}

}  // namespace lazygen::cpu
