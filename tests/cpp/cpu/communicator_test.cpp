// The communicators without sessions: replica threads of one process, and
// "processes" simulated by threads over an in-memory ProcessGroup or over the
// shared-memory one (each thread maps the segments as a process would),
// checked against sums computed here.
#include "cpu/communicator.hpp"
#include "cpu/process_communicator.hpp"
#include "cpu/shm_process_group.hpp"
#include "cpu/shared_update.hpp"
#include "popart/error.hpp"
#include <gtest/gtest.h>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace popart;
using namespace popart::popx;

namespace {

void onThreads(int64_t n, const std::function<void(int64_t)> &f) {
  std::vector<std::thread> ts;
  for (int64_t i = 0; i < n; ++i) ts.emplace_back([&, i] { f(i); });
  for (auto &t : ts) t.join();
}

// P "processes" in one process: allGather through shared memory.
struct SharedGroupState {
  explicit SharedGroupState(int64_t p) : barrier(p), posted(static_cast<size_t>(p)) {}
  Barrier barrier;
  std::vector<const void *> posted;
};

class ThreadGroup final : public ProcessGroup {
public:
  ThreadGroup(SharedGroupState &s, int64_t rank, int64_t size) : s_(s), rank_(rank), size_(size) {}
  int64_t rank() const override { return rank_; }
  int64_t size() const override { return size_; }
  using ProcessGroup::allGather;
  void allGather(const void *in, int64_t bytes, void *out, const char *) override {
    s_.posted[static_cast<size_t>(rank_)] = in;
    s_.barrier.wait();
    for (int64_t p = 0; p < size_; ++p)
      std::memcpy(static_cast<char *>(out) + p * bytes, s_.posted[static_cast<size_t>(p)], static_cast<size_t>(bytes));
    s_.barrier.wait();
  }

private:
  SharedGroupState &s_;
  int64_t rank_, size_;
};

// The ProcessCommunicator tests run over both groups: "threads" (ThreadGroup) and "shm" (ShmProcessGroup).
class ProcessGroups : public ::testing::TestWithParam<std::string> {
protected:
  std::shared_ptr<ProcessGroup> group(int64_t p, int64_t P) {
    std::call_once(once_, [&] {
      state_ = std::make_unique<SharedGroupState>(P);
      static std::atomic<int> tests{0};
      name_ = "/popart-gtest-" + std::to_string(getpid()) + "-" + std::to_string(tests++);
    });
    if (GetParam() == "threads") return std::make_shared<ThreadGroup>(*state_, p, P);
    return std::make_shared<ShmProcessGroup>(p, P, name_, 30.0);
  }

private:
  std::once_flag once_;
  std::unique_ptr<SharedGroupState> state_;
  std::string name_;
};

} // namespace

INSTANTIATE_TEST_SUITE_P(Groups, ProcessGroups, ::testing::Values("threads", "shm"));

TEST(Communicator, LocalAllReduceSumsInPlaceOverGroups) {
  const int64_t R = 4, n = 1001;
  LocalCommunicator comm(R);
  std::vector<std::vector<float>> data(R, std::vector<float>(n));
  for (int64_t r = 0; r < R; ++r)
    for (int64_t i = 0; i < n; ++i) data[r][i] = static_cast<float>(r * 10 + i % 7);
  auto expected = data;
  for (int64_t i = 0; i < n; ++i) {  // Consecutive groups of 2: {0, 1}, {2, 3}
    for (int64_t g = 0; g < 2; ++g) {
      const float s = expected[2 * g][i] + expected[2 * g + 1][i];
      expected[2 * g][i] = expected[2 * g + 1][i] = s;
    }
  }
  onThreads(R, [&](int64_t r) {
    comm.allReduce(r, CommGroup(CommGroupType::Consecutive, 2), CollectiveOp::Add, data[r].data(), data[r].data(),
                   DataType::FLOAT, n);
  });
  EXPECT_EQ(data, expected);
}

TEST(Communicator, AbortReleasesWaitingReplicas) {
  LocalCommunicator comm(2);
  std::atomic<bool> threw{false};
  std::thread waiter([&] {
    float x = 1;
    try {
      comm.allReduce(0, CommGroup(), CollectiveOp::Add, &x, &x, DataType::FLOAT, 1);
    } catch (const runtime_error &e) {
      threw = std::string(e.what()).find("replica 1 failed") != std::string::npos;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  comm.abort("replica 1 failed: test");
  waiter.join();
  EXPECT_TRUE(threw);
  comm.reset();  // usable again
  onThreads(2, [&](int64_t r) {
    float x = static_cast<float>(r + 1);
    comm.allReduce(r, CommGroup(), CollectiveOp::Max, &x, &x, DataType::FLOAT, 1);
    EXPECT_EQ(x, 2.0f);
  });
}

TEST_P(ProcessGroups, TwoProcessesOfTwoReplicas) {
  const int64_t P = 2, R = 2, n = 5;
  std::vector<std::vector<float>> out(P * R, std::vector<float>(R * P * n));
  onThreads(P, [&](int64_t p) {
    ProcessCommunicator comm(R, P * R, p * R, group(p, P));
    onThreads(R, [&](int64_t j) {
      const int64_t g = p * R + j;
      std::vector<float> x(n);
      for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(g * 100 + i);
      std::vector<float> sum(n);
      comm.allReduce(j, CommGroup(), CollectiveOp::Add, x.data(), sum.data(), DataType::FLOAT, n);
      for (int64_t i = 0; i < n; ++i) EXPECT_EQ(sum[i], static_cast<float>(600 + 4 * i));
      comm.allGather(j, CommGroup(CommGroupType::Orthogonal, 2), x.data(), out[g].data(), n * 4);
    });
  });
  for (int64_t g = 0; g < P * R; ++g)  // orthogonal groups of 2 among 4: {0, 2}, {1, 3}
    for (int64_t k = 0; k < 2; ++k)
      EXPECT_EQ(out[g][k * n], static_cast<float>(((g % 2) + 2 * k) * 100));
}

TEST(ProcessCommunicator, ProcessesMustTileTheReplicas) {
  SharedGroupState state(2);
  std::vector<std::string> errors(2);
  onThreads(2, [&](int64_t p) {
    try {
      ProcessCommunicator comm(1, 2, 0, std::make_shared<ThreadGroup>(state, p, 2));  // both claim replica 0
    } catch (const error &e) {
      errors[p] = e.what();
    }
  });
  EXPECT_NE(errors[0].find("globalReplicaOffset"), std::string::npos);
}

TEST_P(ProcessGroups, StridedGroupingAcrossProcesses) {
  // 4 processes of 2 replicas, groups of stride 2 and size 2 among 8: {0, 2}, {1, 3}, {4, 6}, {5, 7}
  const int64_t P = 4, R = 2, n = 3;
  const ReplicaGrouping rg(8, 2, 2);
  std::vector<std::vector<float>> gathered(P * R, std::vector<float>(2 * n)), reduced(P * R, std::vector<float>(n));
  std::vector<float> scattered(P * R);
  onThreads(P, [&](int64_t p) {
    ProcessCommunicator comm(R, P * R, p * R, group(p, P));
    onThreads(R, [&](int64_t j) {
      const int64_t g = p * R + j;
      std::vector<float> x(n);
      for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(g * 10 + i);
      comm.allGather(j, rg, x.data(), gathered[g].data(), n * 4);
      comm.allReduce(j, rg, CollectiveOp::Max, x.data(), reduced[g].data(), DataType::FLOAT, n);
      std::vector<float> two = {static_cast<float>(g), static_cast<float>(100 * g)};
      comm.reduceScatter(j, rg, CollectiveOp::Add, two.data(), &scattered[g], DataType::FLOAT, 1);
    });
  });
  for (int64_t g = 0; g < P * R; ++g) {
    const int64_t first = (g / 4) * 4 + g % 2, index = (g % 4) / 2;
    for (int64_t k = 0; k < 2; ++k)
      for (int64_t i = 0; i < n; ++i) EXPECT_EQ(gathered[g][k * n + i], static_cast<float>((first + 2 * k) * 10 + i));
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(reduced[g][i], static_cast<float>((first + 2) * 10 + i));
    const float sum = static_cast<float>(first + first + 2);
    EXPECT_EQ(scattered[g], index == 0 ? sum : 100 * sum);
  }
}

TEST(Communicator, GroupingForOtherReplicasIsRefused) {
  LocalCommunicator comm(4);
  float x = 1;
  try {
    comm.allGather(0, ReplicaGrouping(8, 2, 2), &x, &x, 4);
    FAIL() << "expected an error";
  } catch (const error &e) {
    EXPECT_NE(std::string(e.what()).find("ReplicaGrouping(numReplicas=8, stride=2, groupSize=2) is for 8 replicas"),
              std::string::npos)
        << e.what();
  }
}

namespace {

// allReduceParts of three parts of odd sizes (the replicas' element ranges cut across parts), every global
// replica of `comm`: part k of replica g holds g * 1000 + k * 100 + i; checked against sums over `groups`.
void checkAllReduceParts(Communicator &comm, int64_t local, const ReplicaGrouping &rg) {
  const std::vector<int64_t> sizes = {7, 1, 13};
  const int64_t g = comm.globalOffset() + local;
  std::vector<std::vector<float>> in(sizes.size()), out(sizes.size());
  std::vector<Communicator::Part> parts;
  for (size_t k = 0; k < sizes.size(); ++k) {
    for (int64_t i = 0; i < sizes[k]; ++i) in[k].push_back(static_cast<float>(g * 1000 + k * 100 + i));
    out[k].assign(static_cast<size_t>(sizes[k]), -1.0f);
    parts.push_back({in[k].data(), k == 1 ? in[k].data() : out[k].data(), sizes[k]});  // part 1 in place
  }
  comm.allReduceParts(local, rg, CollectiveOp::Add, parts.data(), parts.size(), DataType::FLOAT);
  const unsigned group = rg.getGroupAt(static_cast<unsigned>(g));
  for (size_t k = 0; k < sizes.size(); ++k)
    for (int64_t i = 0; i < sizes[k]; ++i) {
      float want = 0;
      for (unsigned m = 0; m < rg.getGroupSize(); ++m)
        want += static_cast<float>(rg.getReplicaAt(group, m) * 1000 + k * 100 + i);
      EXPECT_EQ(static_cast<const float *>(parts[k].out)[i], want) << "replica " << g << " part " << k << " i " << i;
    }
}

} // namespace

TEST(Communicator, LocalAllReducePartsOverGroups) {
  const int64_t R = 4;
  LocalCommunicator comm(R);
  for (const ReplicaGrouping &rg : {ReplicaGrouping(4, 1, 2), ReplicaGrouping(4, 2, 2), ReplicaGrouping(4, 1, 4)})
    onThreads(R, [&](int64_t r) { checkAllReduceParts(comm, r, rg); });
}

TEST_P(ProcessGroups, AllReducePartsAcrossProcesses) {
  for (const int64_t R : {int64_t{1}, int64_t{2}}) {  // one local replica: packed straight into the group's buffer
    const int64_t P = 2;
    onThreads(P, [&](int64_t p) {
      ProcessCommunicator comm(R, P * R, p * R, group(p, P));
      onThreads(R, [&](int64_t j) {
        checkAllReduceParts(comm, j, ReplicaGrouping(static_cast<unsigned>(P * R), 1, static_cast<unsigned>(P * R)));
        if (R == 2) checkAllReduceParts(comm, j, ReplicaGrouping(4, 2, 2));  // orthogonal: across the processes
      });
    });
  }
}

namespace {

// allReduceParts with sliced parts (a shared weight's gradient): part k of global replica g holds g * 1000 + k * 100
// + i; the sliced parts (0 and 2) get the sum over every replica in the replica's slice (replicaSlice) only, and
// keep -1 elsewhere; part 1 is reduced whole.
void checkSlicedParts(Communicator &comm, int64_t local) {
  const std::vector<int64_t> sizes = {40, 3, 100};
  const int64_t g = comm.globalOffset() + local, G = comm.globalReplicas();
  std::vector<std::vector<float>> in(sizes.size()), out(sizes.size());
  std::vector<Communicator::Part> parts;
  for (size_t k = 0; k < sizes.size(); ++k) {
    for (int64_t i = 0; i < sizes[k]; ++i) in[k].push_back(static_cast<float>(g * 1000 + k * 100 + i));
    out[k].assign(static_cast<size_t>(sizes[k]), -1.0f);
    parts.push_back({in[k].data(), out[k].data(), sizes[k], k != 1});
  }
  comm.allReduceParts(local, ReplicaGrouping(static_cast<unsigned>(G)), CollectiveOp::Add, parts.data(), parts.size(),
                      DataType::FLOAT);
  for (size_t k = 0; k < sizes.size(); ++k) {
    const Slice s = k == 1 ? Slice{0, sizes[k]} : replicaSlice(sizes[k], 4, g, G);
    for (int64_t i = 0; i < sizes[k]; ++i) {
      float want = -1.0f;
      if (i >= s.begin && i < s.begin + s.count) {
        want = 0;
        for (int64_t m = 0; m < G; ++m) want += static_cast<float>(m * 1000 + k * 100 + i);
      }
      EXPECT_EQ(out[k][static_cast<size_t>(i)], want) << "replica " << g << " part " << k << " i " << i;
    }
  }
}

} // namespace

TEST(Communicator, LocalAllReducePartsSliced) {
  LocalCommunicator comm(4);
  onThreads(4, [&](int64_t r) { checkSlicedParts(comm, r); });
}

TEST_P(ProcessGroups, AllReducePartsSlicedAcrossProcesses) {
  for (const int64_t R : {int64_t{1}, int64_t{2}}) {
    const int64_t P = 2;
    onThreads(P, [&](int64_t p) {
      ProcessCommunicator comm(R, P * R, p * R, group(p, P));
      onThreads(R, [&](int64_t j) { checkSlicedParts(comm, j); });
    });
  }
}

TEST(ShmProcessGroup, SharedMemoryIsTheSameInEveryProcess) {
  const std::string name = "/popart-gtest-mem-" + std::to_string(getpid());
  onThreads(2, [&](int64_t p) {
    ShmProcessGroup group(p, 2, name, 30.0);
    std::shared_ptr<char> mem = group.sharedMemory(1 << 20, "a test");
    ASSERT_TRUE(mem);
    EXPECT_EQ(mem.get()[p * 4096], 0);  // zero-filled
    mem.get()[p * 4096] = static_cast<char>(10 + p);
    group.barrier("a test");
    EXPECT_EQ(mem.get()[0], 10);
    EXPECT_EQ(mem.get()[4096], 11);
    group.barrier("a test");
  });
}

TEST(ShmProcessGroup, SharedMemoryOfDifferentSizesIsAnError) {
  const std::string name = "/popart-gtest-mem2-" + std::to_string(getpid());
  std::atomic<int> errors{0};
  onThreads(2, [&](int64_t p) {
    ShmProcessGroup group(p, 2, name, 30.0);
    try {
      group.sharedMemory(4096 * (p + 1), "placing the shared weights");
    } catch (const std::exception &e) {
      EXPECT_NE(std::string(e.what()).find("placing the shared weights of"), std::string::npos) << e.what();
      ++errors;
    }
  });
  EXPECT_EQ(errors.load(), 2);
}

TEST(ProcessCommunicator, MpiLikeGroupsShareNoMemory) {
  SharedGroupState state(2);
  onThreads(2, [&](int64_t p) {
    ProcessCommunicator comm(1, 2, p, std::make_shared<ThreadGroup>(state, p, 2));
    EXPECT_FALSE(comm.sharedMemory(64, "a test"));
  });
}
