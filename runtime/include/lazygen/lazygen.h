// The whole public API in one include: tensors, factories, the generated ops, composite ops and
// operators, the lazy device's sync points, and metrics.
#pragma once

#include "lazygen/device.h"
#include "lazygen/aot.h"
#include "lazygen/autograd.h"
#include "lazygen/composite.h"
#include "lazygen/conv.h"
#include "lazygen/cuda.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "lazygen/version.h"
