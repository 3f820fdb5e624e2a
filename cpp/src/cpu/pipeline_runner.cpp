#include "pipeline_runner.hpp"
#include <map>
#include <omp.h>

namespace popart::popx {

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
  q.cv.notify_one();
}

void PipelineRunner::work(size_t stage) {
  omp_set_num_threads(threadsPerStage_);
  auto &q = stageQueues_[stage];
  for (;;) {
    Task t;
    bool failed;
    {
      std::unique_lock<std::mutex> lock(m_);
      q.cv.wait(lock, [&] { return stop_ || !q.tasks.empty(); });
      if (stop_) return;
      t = q.tasks.front();
      q.tasks.pop_front();
      failed = error_ != nullptr;
    }
    Devicex &d = *instances_[static_cast<size_t>(t.microBatch) % instances_.size()];
    std::exception_ptr err;
    if (!failed) {  // after an error, in-flight micro-batches only finish
      try {
        d.segments()[t.segment].prog.run();
      } catch (...) {
        err = std::current_exception();
      }
    }
    std::lock_guard<std::mutex> lock(m_);
    if (err && !error_) error_ = err;
    if (!failed && !err && t.segment + 1 < stageOfSegment_.size()) {
      push({t.segment + 1, t.microBatch});
    } else {
      finished_[static_cast<size_t>(t.microBatch)] = 1;
      finishedCv_.notify_all();
    }
  }
}

void PipelineRunner::run(int64_t count, const MicroBatchFn &begin, const MicroBatchFn &end) {
  const auto K = static_cast<int64_t>(instances_.size());
  auto instance = [&](int64_t m) -> Devicex & { return *instances_[static_cast<size_t>(m % K)]; };
  {
    std::lock_guard<std::mutex> lock(m_);
    finished_.assign(static_cast<size_t>(count), 0);
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
      } else {
        push({0, next});
      }
      ++next;
    }
    if (done == next) break;
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
  if (failure) std::rethrow_exception(failure);
}

} // namespace popart::popx
