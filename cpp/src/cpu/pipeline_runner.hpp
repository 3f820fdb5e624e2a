// Pipelined execution of one replica's micro-batches: the main program's
// segments (devicex.hpp) run on one worker thread per pipeline stage, each
// with its own share of the cores. Micro-batch m uses program instance
// m mod K (its own activations and inputs, shared weights), so at most K
// micro-batches are in flight (the bounded queues between the stages). Every
// stage takes its work in micro-batch order, so gradient accumulation sums in
// the same order as without pipelining: the results are identical.
// Stages rarely cost the same, so the cores follow the work: a stage that
// starts a segment while the other stages are idle runs it on all of the
// pipeline's threads, else on its share (threadsPerStage).
#pragma once
#include "devicex.hpp"
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace popart::popx {

class PipelineRunner {
public:
  /// instances[0] is the replica's main instance; all are prepared.
  PipelineRunner(std::vector<Devicex *> instances, int threadsPerStage);
  ~PipelineRunner();
  PipelineRunner(const PipelineRunner &) = delete;
  PipelineRunner &operator=(const PipelineRunner &) = delete;

  using MicroBatchFn = std::function<void(int64_t microBatch, Devicex &instance)>;
  /// Runs `count` micro-batches: begin() on the calling thread before one
  /// starts (set it up, read its inputs), end() after it finished, in order.
  void run(int64_t count, const MicroBatchFn &begin, const MicroBatchFn &end);

  int64_t stages() const { return static_cast<int64_t>(stageQueues_.size()); }
  int64_t inFlight() const { return static_cast<int64_t>(instances_.size()); }
  int threadsPerStage() const { return threadsPerStage_; }
  /// Time stage s spent running segments, and the time inside run(), since
  /// the last resetStats() (nanoseconds): how well the stages are balanced.
  int64_t stageBusyNs(size_t s) const { return stageQueues_[s].busyNs.load(std::memory_order_relaxed); }
  int64_t runNs() const { return runNs_.load(std::memory_order_relaxed); }
  void resetStats();

private:
  struct Task {
    size_t segment;
    int64_t microBatch;
  };
  struct StageQueue {
    std::deque<Task> tasks;
    std::condition_variable cv;
    std::atomic<int64_t> queued{0};  // tasks.size(), polled without the lock
    std::atomic<int64_t> busyNs{0};
  };
  void work(size_t stage);
  void push(const Task &t);  // caller holds m_

  std::vector<Devicex *> instances_;
  std::vector<size_t> stageOfSegment_;  // segment -> stage thread
  std::vector<StageQueue> stageQueues_;
  std::vector<std::thread> threads_;
  int threadsPerStage_;
  std::atomic<int> busy_{0};  // stages running a segment
  std::mutex m_;
  std::condition_variable finishedCv_;
  std::vector<char> finished_;
  std::atomic<int64_t> finishes_{0};  // micro-batches finished in this run, polled without the lock
  std::atomic<int64_t> runNs_{0};
  std::exception_ptr error_;
  bool stop_ = false;
};

} // namespace popart::popx
