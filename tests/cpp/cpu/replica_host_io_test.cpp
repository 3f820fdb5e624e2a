// ReplicaHostIO without a session: replicas on threads, in any order, read and
// write their own slots [transfers, replicas, ...] of a step IO's arrays.
#include "cpu/replica_host_io.hpp"
#include "popart/error.hpp"
#include "popart/ndarraywrapper.hpp"
#include <gtest/gtest.h>
#include <cstring>
#include <thread>
#include <vector>

using namespace popart;
using namespace popart::popx;

TEST(ReplicaHostIO, EachReplicaUsesItsOwnSlotsWhateverTheOrder) {
  const int64_t T = 3, R = 2, n = 2;
  std::vector<float> x(T * R * n), y(T * R * n, -1.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  NDArrayWrapper<float> xa(x.data(), {T, R, n}), ya(y.data(), {T, R, n});
  StepIO io({{"x", xa}}, {{"y", ya}});
  ReplicaHostIO slots({{"x", n}}, {{"y", n}}, R);
  slots.take(io, T);
  std::vector<std::vector<float>> loaded(R);
  auto replica = [&](int64_t r) {
    IStepIO &mine = slots.replicaIO(r);
    for (int64_t k = 0; k < T + 1; ++k) {  // one load more than the transfers: wraps to the first
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
  slots.finish();
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

TEST(ReplicaHostIO, UnknownStreamNamesItAndTheReplica) {
  std::vector<float> x(4);
  NDArrayWrapper<float> xa(x.data(), {2, 2});
  StepIO io({{"x", xa}}, {});
  ReplicaHostIO slots({{"x", 2}}, {}, 2);
  slots.take(io, 1);
  try {
    slots.replicaIO(1).in("z", 2, false);
    FAIL() << "expected an error";
  } catch (const error &e) {
    EXPECT_NE(std::string(e.what()).find("replica 1 loads host stream 'z'"), std::string::npos) << e.what();
  }
}
