// GemmFused (internal, inference only; made by patterns/gemm_fusion.cpp): a Gemm or a MatMul with a 2-D
// right operand, with the bias Add and the activation that follow it folded in.
#pragma once
#include "popart/op.hpp"
#include <memory>

namespace popart {

/// The activation GemmFused applies last (its "activation" attribute).
enum class GemmActivation : int64_t { None = 0, Relu = 1, Gelu = 2 };  // Gelu: the erf form, 0.5 x (1 + erf(x/sqrt 2))

/// GemmFused with `settings`: Y = act(alpha * A' B' + beta * C), inputs A (0), B (1, 2-D), optional C (2).
/// A' = transA ? A^T : A; without transA, A may have leading dimensions (a MatMul's batch), which count as rows
/// of the product: Y has A's shape with the last dimension N. C broadcasts (unidirectionally) to the
/// [rows, N] product. Attributes: transA, transB, alpha, beta as Gemm's, and activation (GemmActivation).
std::unique_ptr<Op> makeGemmFusedOp(const Op::Settings &settings, bool transA, bool transB, float alpha, float beta,
                                    GemmActivation activation);

} // namespace popart
