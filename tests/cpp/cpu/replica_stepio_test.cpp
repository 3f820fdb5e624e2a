// ReplicaStepIO without a session: replicas on threads, in any order, read the
// inputs staged for them and write anchors that reach the user's step IO in
// the order of replicas running one after the other.
#include "cpu/replica_stepio.hpp"
#include "popart/error.hpp"
#include "popart/ndarraywrapper.hpp"
#include <gtest/gtest.h>
#include <cstring>
#include <thread>
#include <vector>

using namespace popart;
using namespace popart::popx;

namespace {

TensorInfo floats(int64_t n) { return TensorInfo(DataType::FLOAT, {n}); }

} // namespace

TEST(ReplicaStepIO, EachReplicaUsesItsOwnSlotsWhateverTheOrder) {
  const int64_t T = 3, R = 2, n = 2;
  std::vector<float> x(T * R * n), y(T * R * n, -1.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  NDArrayWrapper<float> xa(x.data(), {T, R, n}), ya(y.data(), {T, R, n});
  StepIO io({{"x", xa}}, {{"y", ya}});
  ReplicaStepIO views(R, {{"y", floats(n)}});
  for (int64_t s = 0; s < T * R; ++s) views.stageInput(io, s % R, "x", n);  // laid out [T, R, n]
  std::vector<std::vector<float>> loaded(R);
  auto replica = [&](int64_t r) {
    IStepIO &mine = views.replicaIO(r);
    for (int64_t k = 0; k < T + 1; ++k) {  // one load more than staged: wraps to the first
      ConstVoidData d = mine.in("x", n, false);
      const auto *p = static_cast<const float *>(d.data);
      loaded[static_cast<size_t>(r)].insert(loaded[static_cast<size_t>(r)].end(), p, p + n);
      mine.inComplete("x", n);
    }
    for (int64_t k = 0; k < T; ++k) {
      MutableVoidData o = mine.out("y", n);
      for (int64_t i = 0; i < n; ++i) static_cast<float *>(o.data)[i] = static_cast<float>(100 * r + 10 * k + i);
      mine.outComplete("y");
    }
  };
  std::thread later([&] { replica(0); });
  replica(1);
  later.join();
  views.writeAnchors(io);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t k = 0; k < T + 1; ++k)
      for (int64_t i = 0; i < n; ++i)
        EXPECT_EQ(loaded[static_cast<size_t>(r)][static_cast<size_t>(k * n + i)],
                  x[static_cast<size_t>(((k % T) * R + r) * n + i)]);
  for (int64_t k = 0; k < T; ++k)
    for (int64_t r = 0; r < R; ++r)
      for (int64_t i = 0; i < n; ++i)
        EXPECT_EQ(y[static_cast<size_t>((k * R + r) * n + i)], static_cast<float>(100 * r + 10 * k + i));
}

// A callback step IO may reuse its input buffer once the input is complete:
// the staged value is a copy. Anchors reach it as out()/outComplete() pairs,
// in rounds k = 0, 1, ...: each replica's k-th value of every anchor, in replica order.
TEST(ReplicaStepIO, CallbackInputsAreCopiedAndAnchorsComeInReplicaOrder) {
  const int64_t R = 2;
  float reused = 0.0f;
  float next = 1.0f;
  std::vector<std::pair<TensorId, float>> written;
  float outBuffer = 0.0f;
  TensorId pending;
  StepIOCallback io([&](TensorId, bool) {
                      reused = next++;
                      return ConstVoidData(&reused, floats(1));
                    },
                    [&](TensorId) { reused = -1.0f; },
                    [&](TensorId id) {
                      pending = id;
                      return MutableVoidData{&outBuffer, floats(1)};
                    },
                    [&](TensorId id) {
                      EXPECT_EQ(id, pending);
                      written.emplace_back(id, outBuffer);
                    });
  ReplicaStepIO views(R, {{"a", floats(1)}, {"b", floats(1)}});
  for (int64_t r = 0; r < R; ++r)
    for (int i = 0; i < 2; ++i) views.stageInput(io, r, "x", 1);
  for (int64_t r = R - 1; r >= 0; --r) {  // the later replica first
    IStepIO &mine = views.replicaIO(r);
    for (int k = 0; k < 2; ++k) {
      const float v = *static_cast<const float *>(mine.in("x", 1, false).data);
      EXPECT_EQ(v, static_cast<float>(2 * r + k + 1));
      mine.inComplete("x", 1);
      *static_cast<float *>(mine.out("a", 1).data) = 10.0f * static_cast<float>(r) + static_cast<float>(k);
      if (k == 1) *static_cast<float *>(mine.out("b", 1).data) = 100.0f + static_cast<float>(r);
    }
  }
  views.writeAnchors(io);
  // Round 0: each replica's first value of a and of b; round 1: the second of a.
  const std::vector<std::pair<TensorId, float>> expected{{"a", 0.0f},  {"b", 100.0f}, {"a", 10.0f},
                                                          {"b", 101.0f}, {"a", 1.0f},  {"a", 11.0f}};
  EXPECT_EQ(written, expected);
  written.clear();
  views.writeAnchors(io);  // writeAnchors forgets what it wrote
  EXPECT_TRUE(written.empty());
}

TEST(ReplicaStepIO, OutputBufferOfTheWrongTypeIsNamed) {
  std::vector<float> x(2);
  std::vector<int32_t> y(2);
  NDArrayWrapper<float> xa(x.data(), {2});
  NDArrayWrapper<int32_t> ya(y.data(), {2});
  StepIO io({{"x", xa}}, {{"y", ya}});
  ReplicaStepIO views(1, {{"y", floats(1)}});
  views.replicaIO(0).out("y", 1);
  try {
    views.writeAnchors(io);
    FAIL() << "expected an error";
  } catch (const runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("output buffer of anchor 'y' has type INT32"), std::string::npos) << e.what();
  }
}

TEST(ReplicaStepIO, UnstagedStreamNamesItAndTheReplica) {
  std::vector<float> x(4);
  NDArrayWrapper<float> xa(x.data(), {2, 2});
  StepIO io({{"x", xa}}, {});
  ReplicaStepIO views(2, {});
  views.stageInput(io, 0, "x", 2);
  views.stageInput(io, 1, "x", 2);
  for (const char *id : {"z", "y"}) {
    try {
      views.replicaIO(1).in(id, 2, false);
      FAIL() << "expected an error";
    } catch (const error &e) {
      EXPECT_NE(std::string(e.what()).find("replica 1 reads input '" + std::string(id) + "'"), std::string::npos)
          << e.what();
    }
  }
  try {
    views.replicaIO(0).out("x", 2);
    FAIL() << "expected an error";
  } catch (const error &e) {
    EXPECT_NE(std::string(e.what()).find("replica 0 writes anchor 'x'"), std::string::npos) << e.what();
  }
}
