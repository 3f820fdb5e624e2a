// One worker thread per local replica, each with its own OpenMP thread count
// (its share of the host's cores), kept for the session's lifetime so that
// per-thread state (OpenMP teams, oneDNN streams and scratch) is reused.
#pragma once
#include <atomic>
#include <condition_variable>
#include <memory>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace popart::popx {

class ReplicaThreads {
public:
  ReplicaThreads(int64_t replicas, int threadsEach);
  ~ReplicaThreads();
  ReplicaThreads(const ReplicaThreads &) = delete;
  ReplicaThreads &operator=(const ReplicaThreads &) = delete;

  using Task = std::function<void(int64_t replica)>;
  /// Runs task(r) on every worker at once and waits for all. When one throws,
  /// onFailure(r, message) is called at once (to release the others from
  /// collectives); the error rethrown is the first that happened.
  void runAll(const Task &task, const std::function<void(int64_t, const std::string &)> &onFailure);
  /// Runs task(r) on worker r, one replica after the other.
  void runEach(const Task &task);
  int threadsEach() const { return threadsEach_; }

private:
  void work(int64_t r);
  void start(int64_t r);  // wakes worker r for the current task
  void waitIdle();

  std::vector<std::thread> threads_;
  int threadsEach_;
  std::mutex m_;
  std::condition_variable wake_, done_;
  // Per worker: bumped (under m_) to start its task; a worker that finished
  // polls its counter briefly before it sleeps (the next micro-batch's task
  // follows within microseconds).
  std::unique_ptr<std::atomic<uint64_t>[]> generation_;
  int64_t pending_ = 0;
  std::atomic<bool> stop_{false};
  const Task *task_ = nullptr;
  const std::function<void(int64_t, const std::string &)> *onFailure_ = nullptr;
  std::exception_ptr firstError_;
};

} // namespace popart::popx
