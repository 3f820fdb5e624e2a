#include "communicator.hpp"
#include "kernels/dispatch.hpp"
#include "popart/error.hpp"
#include "kernels/vmath.hpp"
#include "popart/popx/opx.hpp"
#include "popart/replicagrouping.hpp"
#include "shared_update.hpp"
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace popart::popx {

std::string toString(CollectiveOp op) {
  static const char *names[] = {"Add", "Mean", "Mul", "Min", "Max", "LogicalAnd", "LogicalOr", "SquareAdd", "Local"};
  const auto i = static_cast<size_t>(op);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "CollectiveOperator(" + std::to_string(i) + ")";
}

namespace {

// Spins while busy() for at most ~50 us (a hand-off between running threads
// then costs no sleep and wake-up); false when it gave up.
template <class Busy> bool spinWhile(Busy busy) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
  for (int i = 1;; ++i) {
    if (!busy()) return true;
#if defined(__x86_64__)
    _mm_pause();
#endif
    if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return false;
  }
}

} // namespace

void Barrier::wait() {
  std::unique_lock<std::mutex> lock(m_);
  if (!abort_.empty()) throw runtime_error("{}", abort_);
  const uint64_t gen = generation_.load();
  if (++waiting_ == n_) {
    waiting_ = 0;
    generation_.store(gen + 1);
    cv_.notify_all();
    return;
  }
  lock.unlock();
  spinWhile([&] { return generation_.load(std::memory_order_acquire) == gen && !aborting_.load(); });
  lock.lock();
  cv_.wait(lock, [&] { return generation_.load() != gen || !abort_.empty(); });
  if (generation_.load() == gen) throw runtime_error("{}", abort_);
}

void Barrier::abort(const std::string &why) {
  std::lock_guard<std::mutex> lock(m_);
  if (abort_.empty()) abort_ = why.empty() ? "a replica failed" : why;
  aborting_ = true;
  cv_.notify_all();
}

void Barrier::reset() {
  std::lock_guard<std::mutex> lock(m_);
  abort_.clear();
  aborting_ = false;
  waiting_ = 0;
  ++generation_;
}

bool Barrier::aborted() const {
  std::lock_guard<std::mutex> lock(m_);
  return !abort_.empty();
}

namespace {

// acc = op(acc, x) for one element (Add-like reductions accumulate in compute type).
template <class T> struct Reducer {
  using C = cpu::compute_t<T>;
  static C first(CollectiveOp op, T x) {
    const C v = static_cast<C>(x);
    return op == CollectiveOp::SquareAdd ? v * v : v;
  }
  static C step(CollectiveOp op, C acc, T x) {
    const C v = static_cast<C>(x);
    switch (op) {
    case CollectiveOp::Add:
    case CollectiveOp::Mean: return acc + v;
    case CollectiveOp::SquareAdd: return acc + v * v;
    case CollectiveOp::Mul: return acc * v;
    case CollectiveOp::Min: return std::min(acc, v);
    case CollectiveOp::Max: return std::max(acc, v);
    case CollectiveOp::LogicalAnd: return static_cast<C>(acc != C(0) && v != C(0));
    case CollectiveOp::LogicalOr: return static_cast<C>(acc != C(0) || v != C(0));
    default: return acc;
    }
  }
};

// The float sum (mean) of reduceInto, vectorised: the same operations in the same order.
void sumFloat(const std::vector<const char *> &src, int64_t offset, int64_t n, float *out, bool mean) {
  const auto G = static_cast<float>(src.size());
  popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
    const float *a = reinterpret_cast<const float *>(src[0]) + offset;
    if (src.size() == 2) {  // the common case in one pass
      const float *c = reinterpret_cast<const float *>(src[1]) + offset;
#pragma omp simd
      for (int64_t i = b; i < e; ++i) {
        const float acc = a[i] + c[i];
        out[i] = mean ? acc / G : acc;
      }
      return;
    }
    for (int64_t i = b; i < e; ++i) {
      float acc = a[i];
      for (size_t m = 1; m < src.size(); ++m) acc += reinterpret_cast<const float *>(src[m])[offset + i];
      out[i] = mean ? acc / G : acc;
    }
  }, cpu::kMemoryBoundGrain);
}

// out[i] = op over members m of src[m][offset + i], in member order.
void reduceInto(CollectiveOp op, DataType type, const std::vector<const char *> &src, int64_t offsetElems,
                int64_t n, void *out) {
  if (type == DataType::FLOAT && (op == CollectiveOp::Add || op == CollectiveOp::Mean))
    return sumFloat(src, offsetElems, n, static_cast<float *>(out), op == CollectiveOp::Mean);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    using C = cpu::compute_t<T>;
    T *o = static_cast<T *>(out);
    const size_t G = src.size();
    for (int64_t i = 0; i < n; ++i) {
      C acc = Reducer<T>::first(op, reinterpret_cast<const T *>(src[0])[offsetElems + i]);
      for (size_t m = 1; m < G; ++m) acc = Reducer<T>::step(op, acc, reinterpret_cast<const T *>(src[m])[offsetElems + i]);
      if (op == CollectiveOp::Mean) acc = static_cast<C>(acc / static_cast<C>(G));
      o[i] = static_cast<T>(acc);
    }
  };
  if (type == DataType::BOOL) {
    if (op != CollectiveOp::LogicalAnd && op != CollectiveOp::LogicalOr && op != CollectiveOp::Max &&
        op != CollectiveOp::Min)
      throw error("collective operator {} is not defined for BOOL tensors (use LogicalAnd, LogicalOr, Min, Max)",
                  toString(op));
    const CollectiveOp u8op = op == CollectiveOp::Min ? CollectiveOp::LogicalAnd
                              : op == CollectiveOp::Max ? CollectiveOp::LogicalOr : op;
    auto *o = static_cast<uint8_t *>(out);
    for (int64_t i = 0; i < n; ++i) {
      bool acc = u8op == CollectiveOp::LogicalAnd;
      for (const char *s : src) {
        const bool v = reinterpret_cast<const uint8_t *>(s)[offsetElems + i] != 0;
        acc = u8op == CollectiveOp::LogicalAnd ? (acc && v) : (acc || v);
      }
      o[i] = acc;
    }
    return;
  }
  cpu::dispatchNumeric(type, run);
}

} // namespace

Communicator::Communicator(int64_t localReplicas, int64_t globalReplicas, int64_t globalOffset)
    : partsOf_(static_cast<size_t>(localReplicas)), work_(static_cast<size_t>(localReplicas)), local_(localReplicas),
      global_(globalReplicas),
      offset_(globalOffset) {}
Communicator::~Communicator() = default;

void Communicator::checkGrouping(const ReplicaGrouping &g) const {
  if (g.getNumReplicas() != static_cast<unsigned>(global_))
    throw error("{} is for {} replicas, the communicator has {}", g.str(), g.getNumReplicas(), global_);
}

int64_t Communicator::groupSize(const ReplicaGrouping &g) const {
  checkGrouping(g);
  return g.getGroupSize();
}

int64_t Communicator::indexInGroup(const ReplicaGrouping &g, int64_t local) const {
  checkGrouping(g);
  return g.getIndexInGroupAt(static_cast<unsigned>(offset_ + local));
}

namespace {

// The contributions of `replica`'s group of g, in group order, into `ptrs`
// (reused storage: no allocation once it has the group's size); returns the
// replica's index in its group.
int64_t groupOf(const ReplicaGrouping &rg, int64_t replica, const std::vector<const char *> &all,
                std::vector<const char *> &ptrs) {
  const unsigned group = rg.getGroupAt(static_cast<unsigned>(replica));
  ptrs.clear();
  for (unsigned i = 0; i < rg.getGroupSize(); ++i) ptrs.push_back(all[rg.getReplicaAt(group, i)]);
  return rg.getIndexInGroupAt(static_cast<unsigned>(replica));
}

} // namespace

void Communicator::allReduce(int64_t local, const ReplicaGrouping &g, CollectiveOp op, const void *in, void *out,
                             DataType type, int64_t n) {
  const Part part{in, out, n};
  allReduceParts(local, g, op, &part, 1, type);
}

char *Communicator::staging(int64_t local, int64_t bytes) {
  auto &buffer = work_[static_cast<size_t>(local)].staging;
  if (buffer.size() < static_cast<size_t>(bytes)) buffer.resize(static_cast<size_t>(bytes));
  return buffer.data();
}

namespace {

// Calls f(part, offset in the part, count, offset in the packed parts) for the elements [begin, end) of the
// parts packed one after the other (parts read in place take no room).
template <class F>
void forPartsIn(const Communicator::Part *parts, size_t count, int64_t begin, int64_t end, F f) {
  int64_t at = 0;
  for (size_t k = 0; k < count && at < end; ++k) {
    if (parts[k].peers) continue;
    const int64_t from = std::max(begin, at), to = std::min(end, at + parts[k].n);
    if (to > from) f(k, from - at, to - from, from);
    at += parts[k].n;
  }
}

} // namespace

void Communicator::allReduceParts(int64_t local, const ReplicaGrouping &g, CollectiveOp op, const Part *parts,
                                  size_t count, DataType type) {
  checkGrouping(g);
  const int64_t elem = TensorInfo(type, {}).nbytes();
  int64_t n = 0;  // packed elements
  for (size_t k = 0; k < count; ++k) {
    if (parts[k].peers && (!parts[k].sliced || groupSize(g) != global_))
      throw internal_error("allReduceParts: a part read in place must be sliced over all replicas");
    n += parts[k].peers ? 0 : parts[k].n;
  }
  if (op == CollectiveOp::Local) {
    for (size_t k = 0; k < count; ++k)
      if (parts[k].out != parts[k].in) std::memmove(parts[k].out, parts[k].in, static_cast<size_t>(parts[k].n * elem));
    return;
  }
  // One part is exchanged as it is; several are packed first, where the exchange reads them.
  const void *send = count == 1 && !parts[0].peers ? parts[0].in : nullptr;
  if (!send && n > 0) {
    char *packed = staging(local, n * elem);
    send = packed;
    for (size_t k = 0; k < count; ++k) {
      if (parts[k].peers) continue;
      std::memcpy(packed, parts[k].in, static_cast<size_t>(parts[k].n * elem));
      packed += parts[k].n * elem;
    }
  }
  // Local replica j reduces elements [n j / L, n (j + 1) / L) for every local replica's outputs: each element is
  // read and written by one thread only, so an output may be its input, and the work splits over the replica
  // threads.
  partsOf_[static_cast<size_t>(local)] = {parts, count};
  const auto &all = exchange(local, send, n * elem);
  const int64_t begin = n * local / local_, end = n * (local + 1) / local_;
  try {
    auto &w = work_[static_cast<size_t>(local)];
    w.done.clear();
    for (int64_t m = 0; m < local_ && end > begin; ++m) {
      const Part *outs = partsOf_[static_cast<size_t>(m)].first;
      groupOf(g, offset_ + m, all, w.members);
      const char *first = w.members.front();  // identifies the group
      auto seen = std::find_if(w.done.begin(), w.done.end(), [&](const auto &d) { return d.first == first; });
      const Part *from = seen != w.done.end() ? partsOf_[static_cast<size_t>(seen->second)].first : nullptr;
      forPartsIn(outs, count, begin, end, [&](size_t k, int64_t at, int64_t c, int64_t packedAt) {
        if (outs[k].sliced) {  // only replica m's slice of this part
          const Slice s = replicaSlice(outs[k].n, elem, offset_ + m, global_);
          const int64_t lo = std::max(at, s.begin), hi = std::min(at + c, s.begin + s.count);
          if (hi > lo)
            reduceInto(op, type, w.members, packedAt + lo - at, hi - lo, static_cast<char *>(outs[k].out) + lo * elem);
        } else if (from) {  // another local replica of the same group reduced the same values
          std::memcpy(static_cast<char *>(outs[k].out) + at * elem, static_cast<const char *>(from[k].out) + at * elem,
                      static_cast<size_t>(c * elem));
        } else {
          reduceInto(op, type, w.members, packedAt, c, static_cast<char *>(outs[k].out) + at * elem);
        }
      });
      if (!from) w.done.emplace_back(first, m);
    }
    // Parts read in place: this replica's slice of each, from every replica's memory.
    for (size_t k = 0; k < count; ++k) {
      if (!parts[k].peers) continue;
      groupOf(g, offset_ + local, *parts[k].peers, w.members);
      reduceOwnSlice(local, op, type, w.members, parts[k].n, parts[k].out);
    }
  } catch (...) {
    release(local);
    throw;
  }
  release(local);
}

void Communicator::reduceOwnSlice(int64_t local, CollectiveOp op, DataType type, const std::vector<const char *> &src,
                                  int64_t n, void *out) const {
  const int64_t elem = TensorInfo(type, {}).nbytes();
  const Slice s = replicaSlice(n, elem, offset_ + local, global_);
  if (s.count > 0) reduceInto(op, type, src, s.begin, s.count, static_cast<char *>(out) + s.begin * elem);
}

void Communicator::allReduceSlice(int64_t local, CollectiveOp op, const void *in, void *out, DataType type,
                                  int64_t n) {
  gather(local, in, n * TensorInfo(type, {}).nbytes(),
         [&](const std::vector<const char *> &all) { reduceOwnSlice(local, op, type, all, n, out); });
}

void Communicator::gather(int64_t local, const void *in, int64_t bytes,
                          const std::function<void(const std::vector<const char *> &)> &f) {
  const auto &all = exchange(local, in, bytes);
  try {
    f(all);
  } catch (...) {
    release(local);
    throw;
  }
  release(local);
}

void Communicator::allGather(int64_t local, const ReplicaGrouping &g, const void *in, void *out, int64_t bytes) {
  checkGrouping(g);
  const auto &all = exchange(local, in, bytes);
  auto &members = work_[static_cast<size_t>(local)].members;
  groupOf(g, offset_ + local, all, members);
  for (size_t k = 0; k < members.size(); ++k)
    std::memcpy(static_cast<char *>(out) + static_cast<int64_t>(k) * bytes, members[k], static_cast<size_t>(bytes));
  release(local);
}

void Communicator::reduceScatter(int64_t local, const ReplicaGrouping &g, CollectiveOp op, const void *in, void *out,
                                 DataType type, int64_t n) {
  const int64_t elem = TensorInfo(type, {}).nbytes();
  const int64_t G = groupSize(g);
  const auto &all = exchange(local, in, G * n * elem);
  auto &members = work_[static_cast<size_t>(local)].members;
  const int64_t index = groupOf(g, offset_ + local, all, members);
  try {
    if (op == CollectiveOp::Local)
      std::memcpy(out, members[static_cast<size_t>(index)] + index * n * elem, static_cast<size_t>(n * elem));
    else
      reduceInto(op, type, members, index * n, n, out);
  } catch (...) {
    release(local);
    throw;
  }
  release(local);
}

void Communicator::broadcast(int64_t local, const ReplicaGrouping &g, int64_t root, void *data, int64_t bytes) {
  if (root < 0 || root >= groupSize(g))
    throw error("broadcast root {} is out of range for groups of {} replicas", root, groupSize(g));
  const auto &all = exchange(local, data, bytes);
  auto &members = work_[static_cast<size_t>(local)].members;
  const int64_t index = groupOf(g, offset_ + local, all, members);
  // Only the root's buffer is read, and the root does not write.
  // Local replicas may share a buffer (shared_update.hpp): nothing to copy then.
  if (index != root && data != members[static_cast<size_t>(root)])
    std::memcpy(data, members[static_cast<size_t>(root)], static_cast<size_t>(bytes));
  release(local);
}

void Communicator::hostAllReduce(int64_t local, void *data, DataType type, int64_t n) {
  if (!hostGroup_) return;
  const int64_t bytes = n * TensorInfo(type, {}).nbytes();
  if (local == 0) {
    try {
      const int64_t P = hostGroup_->size();
      if (hostRecv_.size() < static_cast<size_t>(P * bytes)) hostRecv_.resize(static_cast<size_t>(P * bytes));
      hostGroup_->allGather(data, bytes, hostRecv_.data());
      std::vector<const char *> all;
      for (int64_t p = 0; p < P; ++p) all.push_back(hostRecv_.data() + p * bytes);
      reduceInto(CollectiveOp::Mean, type, all, 0, n, data);
      hostResult_ = data;
    } catch (const std::exception &e) {
      abort(std::string("host all-reduce failed: ") + e.what());
      throw;
    }
  }
  localBarrier();
  if (local != 0) std::memcpy(data, hostResult_, static_cast<size_t>(bytes));
  localBarrier();
}

LocalCommunicator::LocalCommunicator(int64_t replicas)
    : Communicator(replicas, replicas, 0), barrier_(replicas), posted_(static_cast<size_t>(replicas)) {}

const std::vector<const char *> &LocalCommunicator::exchange(int64_t local, const void *in, int64_t) {
  posted_[static_cast<size_t>(local)] = static_cast<const char *>(in);
  barrier_.wait();
  return posted_;
}

} // namespace popart::popx
