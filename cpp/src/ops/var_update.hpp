// Fine-grained var-update ops (PopXL's popxl.ops.var_updates and ops.lamb_square), each an internal
// ai.graphcore op. The ops that update a tensor modify input 0 in place and return it as output 0
// (an alias). A hyper-parameter is either a float attribute or, when its optional input is
// connected, a scalar tensor read at run time. Input indices and the accumulation types are
// shared by the ops (ops/var_update.cpp) and their CPU kernels (cpu/kernels/var_update.cpp).
#pragma once
#include <cstdint>

namespace popart::varupdate {

/// How Accumulate combines accumulator a, updater x and factor f (PopART's AccumulationType values).
enum class AccumulationType : int64_t {
  Add = 0,              // a + x
  DampenedAdd,          // a + f*x
  DampenedAddSquare,    // a + f*x^2
  DecayAdd,             // f*a + x
  DecayAddSquare,       // f*a + x^2
  MovingAverage,        // f*a + (1-f)*x
  MovingAverageSquare,  // f*a + (1-f)*x^2
  Infinity,             // max(f*a, |x|)
  Mean,                 // a*f/(f+1) + x/(f+1)   (f: the number of values already averaged)
  N
};

// Accumulate(a, x[, f]) -> a' ; attributes "type" (AccumulationType), "factor" (float, when no f input).
namespace accumulate {
constexpr int kAccum = 0, kUpdater = 1, kFactor = 2;
}
// SparseAccumulate(a, x, f?, indices) -> a' : a[.., indices[j], ..] += f*x[.., j, ..] along "axis"
// ("type" Add or DampenedAdd). x has a's shape with dimension `axis` replaced by indices' shape.
namespace sparse {
constexpr int kAccum = 0, kUpdater = 1, kFactor = 2, kIndices = 3;
}
// AccumulatorScale(a[, f]) -> a' = f*a ("factor" attribute; 0 zeroes a).
namespace scale {
constexpr int kAccum = 0, kFactor = 1;
}
// AdamUpdater(w?, m, v, t?, wd?, b1?, b2?, eps?) -> updater; "mode" (AdamMode), float attributes
// "weightDecay", "beta1", "beta2", "epsilon" for absent tensor inputs. t is incremented in place
// first when the mode corrects bias (Adam, Lamb, AdaMax).
namespace adam {
constexpr int kWeight = 0, kM = 1, kV = 2, kStep = 3, kWd = 4, kBeta1 = 5, kBeta2 = 6, kEps = 7;
}
// AdamVarUpdate(w, x, r1sq?, r2sq?, lr?, mwn?) -> w' = w - lr*ratio*x, ratio = min(sqrt(r1sq), mwn)/sqrt(r2sq)
// when both squared norms are given (1 when a norm is 0); float attributes "learningRate", "maxWeightNorm".
namespace adamvar {
constexpr int kWeight = 0, kUpdater = 1, kR1Sq = 2, kR2Sq = 3, kLr = 4, kMwn = 5;
}

} // namespace popart::varupdate
