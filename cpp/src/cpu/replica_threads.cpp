#include "replica_threads.hpp"
#include <chrono>
#include <omp.h>

namespace popart::popx {

ReplicaThreads::ReplicaThreads(int64_t replicas, int threadsEach)
    : threadsEach_(threadsEach), generation_(std::make_unique<std::atomic<uint64_t>[]>(static_cast<size_t>(replicas))) {
  for (int64_t r = 0; r < replicas; ++r) threads_.emplace_back([this, r] { work(r); });
}

ReplicaThreads::~ReplicaThreads() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto &t : threads_) t.join();
}

void ReplicaThreads::work(int64_t r) {
  omp_set_num_threads(threadsEach_);  // this thread's OpenMP teams (and oneDNN's)
  uint64_t seen = 0;
  auto &generation = generation_[static_cast<size_t>(r)];
  for (;;) {
    const Task *task;
    // Poll for ~100 us, yielding the core (the calling thread prepares the next task meanwhile).
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(100);
    while (generation.load(std::memory_order_acquire) == seen && !stop_.load() &&
           std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
    {
      std::unique_lock<std::mutex> lock(m_);
      wake_.wait(lock, [&] { return stop_ || generation.load() != seen; });
      if (stop_) return;
      seen = generation.load();
      task = task_;
    }
    std::exception_ptr err;
    std::string what;
    try {
      (*task)(r);
    } catch (const std::exception &e) {
      err = std::current_exception();
      what = e.what();
    } catch (...) {
      err = std::current_exception();
      what = "unknown exception";
    }
    if (err) {
      {
        std::lock_guard<std::mutex> lock(m_);
        if (!firstError_) firstError_ = err;  // before waking the others with onFailure
      }
      if (onFailure_) (*onFailure_)(r, what);
    }
    std::lock_guard<std::mutex> lock(m_);
    if (--pending_ == 0) done_.notify_all();
  }
}

void ReplicaThreads::start(int64_t r) {
  ++generation_[static_cast<size_t>(r)];
  ++pending_;
}

void ReplicaThreads::waitIdle() {
  std::unique_lock<std::mutex> lock(m_);
  done_.wait(lock, [&] { return pending_ == 0; });
  task_ = nullptr;
  onFailure_ = nullptr;
  if (firstError_) {
    auto e = firstError_;
    firstError_ = nullptr;
    std::rethrow_exception(e);
  }
}

void ReplicaThreads::runAll(const Task &task, const std::function<void(int64_t, const std::string &)> &onFailure) {
  {
    std::lock_guard<std::mutex> lock(m_);
    task_ = &task;
    onFailure_ = &onFailure;
    for (int64_t r = 0; r < static_cast<int64_t>(threads_.size()); ++r) start(r);
  }
  wake_.notify_all();
  waitIdle();
}

void ReplicaThreads::runEach(const Task &task) {
  for (int64_t r = 0; r < static_cast<int64_t>(threads_.size()); ++r) {
    {
      std::lock_guard<std::mutex> lock(m_);
      task_ = &task;
      start(r);
    }
    wake_.notify_all();
    waitIdle();
  }
}

} // namespace popart::popx
