// Shape rules of MatMul shared by the op (shape inference) and its kernel.
#pragma once
#include "popart/names.hpp"

namespace popart {

/// numpy matmul of A and B as a batch of [m,k] x [k,n] products. 1-D operands
/// are promoted ([k] -> [1,k] for A, [k] -> [k,1] for B) and the added
/// dimension is absent from `out`. batchA/batchB/batch have the same rank;
/// a batch dimension of 1 in batchA/batchB is broadcast.
struct MatMulGeometry {
  Shape batchA, batchB, batch;
  int64_t m = 1, k = 1, n = 1;
  Shape out;
  int64_t batchSize() const;
};

/// Throws popart::error when the contraction or batch dimensions disagree.
MatMulGeometry matmulGeometry(const Shape &a, const Shape &b);

} // namespace popart
