#include "pipeline_runner.hpp"
#include <chrono>
#include <map>
#include <omp.h>

namespace popart::popx {
namespace {

int64_t nsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
}

// Polls idle() for ~50 us, yielding the core, before the caller sleeps: a
// hand-off between stages then usually costs no sleep and wake-up.
template <class Idle> void pollWhile(Idle idle) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
  while (idle() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
}

} // namespace

PipelineRunner::PipelineRunner(std::vector<Devicex *> instances, int threadsPerStage)
    : instances_(std::move(instances)), threadsPerStage_(threadsPerStage) {
  std::map<int64_t, size_t> stageIndex;
  for (const auto &seg : instances_.front()->segments()) stageIndex.emplace(seg.stage, 0);
  size_t k = 0;
  for (auto &[stage, index] : stageIndex) index = k++;
  for (const auto &seg : instances_.front()->segments()) stageOfSegment_.push_back(stageIndex.at(seg.stage));
  stageQueues_ = std::vector<StageQueue>(stageIndex.size());
  for (size_t s = 0; s < stageQueues_.size(); ++s) threads_.emplace_back([this, s] { work(s); });
}

PipelineRunner::~PipelineRunner() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  for (auto &q : stageQueues_) q.cv.notify_all();
  for (auto &t : threads_) t.join();
}

void PipelineRunner::push(const Task &t) {
  auto &q = stageQueues_[stageOfSegment_[t.segment]];
  q.tasks.push_back(t);
  q.queued.fetch_add(1);
  q.cv.notify_one();
}

void PipelineRunner::work(size_t stage) {
  const int all = threadsPerStage_ * static_cast<int>(stageQueues_.size());
  auto &q = stageQueues_[stage];
  for (;;) {
    Task t;
    bool failed;
    pollWhile([&] { return q.queued.load(std::memory_order_acquire) == 0; });
    {
      std::unique_lock<std::mutex> lock(m_);
      q.cv.wait(lock, [&] { return stop_ || !q.tasks.empty(); });
      if (stop_) return;
      t = q.tasks.front();
      q.tasks.pop_front();
      q.queued.fetch_sub(1);
      failed = error_ != nullptr;
    }
    Devicex &d = *instances_[static_cast<size_t>(t.microBatch) % instances_.size()];
    std::exception_ptr err;
    if (!failed) {  // after an error, in-flight micro-batches only finish
      // All threads while no other stage works, else this stage's share.
      const int others = busy_.fetch_add(1);
      omp_set_num_threads(others == 0 ? all : threadsPerStage_);
      const auto t0 = std::chrono::steady_clock::now();
      try {
        d.segments()[t.segment].prog.run();
      } catch (...) {
        err = std::current_exception();
      }
      q.busyNs.fetch_add(nsSince(t0), std::memory_order_relaxed);
      busy_.fetch_sub(1);
    }
    std::lock_guard<std::mutex> lock(m_);
    if (err && !error_) error_ = err;
    if (!failed && !err && t.segment + 1 < stageOfSegment_.size()) {
      push({t.segment + 1, t.microBatch});
    } else {
      finished_[static_cast<size_t>(t.microBatch)] = 1;
      finishes_.fetch_add(1);
      finishedCv_.notify_all();
    }
  }
}

void PipelineRunner::resetStats() {
  for (auto &q : stageQueues_) q.busyNs = 0;
  runNs_ = 0;
}

void PipelineRunner::run(int64_t count, const MicroBatchFn &begin, const MicroBatchFn &end) {
  const auto started = std::chrono::steady_clock::now();
  const auto K = static_cast<int64_t>(instances_.size());
  auto instance = [&](int64_t m) -> Devicex & { return *instances_[static_cast<size_t>(m % K)]; };
  {
    std::lock_guard<std::mutex> lock(m_);
    finished_.assign(static_cast<size_t>(count), 0);
    finishes_ = 0;
    error_ = nullptr;
  }
  int64_t next = 0, done = 0;
  std::exception_ptr failure;
  while (done < next || (next < count && !failure)) {
    // Fill: start micro-batches while an instance is free (at most K in flight).
    while (!failure && next < count && next - done < K) {
      try {
        begin(next, instance(next));
      } catch (...) {
        failure = std::current_exception();
        break;
      }
      std::lock_guard<std::mutex> lock(m_);
      if (stageOfSegment_.empty()) {
        finished_[static_cast<size_t>(next)] = 1;
        finishes_.fetch_add(1);
      } else {
        push({0, next});
      }
      ++next;
    }
    if (done == next) break;
    pollWhile([&] { return finishes_.load(std::memory_order_acquire) <= done; });
    {
      std::unique_lock<std::mutex> lock(m_);
      finishedCv_.wait(lock, [&] { return finished_[static_cast<size_t>(done)] != 0; });
      if (error_ && !failure) failure = error_;
    }
    if (!failure) {
      try {
        end(done, instance(done));
      } catch (...) {
        failure = std::current_exception();
      }
    }
    ++done;
  }
  runNs_.fetch_add(nsSince(started), std::memory_order_relaxed);
  if (failure) std::rethrow_exception(failure);
}

} // namespace popart::popx
