// The branch-free float approximations of cpu/kernels/vmath.hpp at the edges: NaN, +-Inf, overflow and
// subnormal results, against std::exp/tanh/erf. Under scripts/sanitize.sh (UBSan) the NaN case also checks
// that no undefined conversion or shift happens on the way (exp(NaN) shifted a negative value before).
#include "cpu/kernels/vmath.hpp"
#include <gtest/gtest.h>
#include <cmath>
#include <limits>

using namespace popart::cpu;

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

void expectClose(float got, double exact, const char *what, float x) {
  const float want = static_cast<float>(exact);  // inf beyond float's range
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << "(" << x << ") = " << got;
  } else if (std::isinf(want) || want == 0.0) {
    EXPECT_EQ(got, want) << what << "(" << x << ")";
  } else {
    EXPECT_NEAR(got, want, 4e-7f * std::fabs(want) + 1e-44f) << what << "(" << x << ")";
  }
}
} // namespace

TEST(Vmath, ExpSpecialValues) {
  for (float x : {kNan, -kNan, kInf, -kInf, 0.0f, -0.0f, 88.7f, 89.5f, 200.0f, -87.0f, -100.0f, -103.5f, -110.0f})
    expectClose(vmath::exp(x), std::exp(static_cast<double>(x)), "exp", x);
}

TEST(Vmath, ExpSweep) {
  for (float x = -100.0f; x < 88.0f; x += 0.37f) expectClose(vmath::exp(x), std::exp(static_cast<double>(x)), "exp", x);
}

TEST(Vmath, SigmoidTanhErfPropagateNan) {
  for (float x : {kNan, -kNan}) {
    EXPECT_TRUE(std::isnan(vmath::sigmoid(x)));
    EXPECT_TRUE(std::isnan(vmath::tanh(x)));
    EXPECT_TRUE(std::isnan(vmath::erf(x)));
  }
  EXPECT_EQ(vmath::sigmoid(kInf), 1.0f);
  EXPECT_EQ(vmath::sigmoid(-kInf), 0.0f);
  EXPECT_EQ(vmath::tanh(kInf), 1.0f);
  EXPECT_EQ(vmath::tanh(-kInf), -1.0f);
  EXPECT_EQ(vmath::erf(kInf), 1.0f);
  EXPECT_EQ(vmath::erf(-kInf), -1.0f);
}
