#include "process_communicator.hpp"
#include "popart/error.hpp"
#include <cstring>
#include <mutex>

namespace popart::popx {
namespace {

std::mutex &groupMutex() {
  static std::mutex m;
  return m;
}
std::shared_ptr<ProcessGroup> &groupSlot() {
  static std::shared_ptr<ProcessGroup> g;
  return g;
}

struct ProcessRecord {
  int64_t localReplicas, globalReplicas, offset;
};

} // namespace

std::shared_ptr<ProcessGroup> processGroup() {
  std::lock_guard<std::mutex> lock(groupMutex());
  return groupSlot();
}

void setProcessGroup(std::shared_ptr<ProcessGroup> group) {
  std::lock_guard<std::mutex> lock(groupMutex());
  groupSlot() = std::move(group);
}

const std::vector<const char *> &ProcessGroup::post(const void *in, int64_t bytes) {
  const int64_t P = size();
  if (gathered_.size() < static_cast<size_t>(P * bytes)) gathered_.resize(static_cast<size_t>(P * bytes));
  allGather(in, bytes, gathered_.data());
  pointers_.resize(static_cast<size_t>(P));
  for (int64_t p = 0; p < P; ++p) pointers_[static_cast<size_t>(p)] = gathered_.data() + p * bytes;
  return pointers_;
}

void ProcessGroup::barrier(const char *what) {
  const char mine = 0;
  std::vector<char> all(static_cast<size_t>(size()));
  allGather(&mine, 1, all.data(), what);
}

ProcessCommunicator::ProcessCommunicator(int64_t localReplicas, int64_t globalReplicas, int64_t globalOffset,
                                         std::shared_ptr<ProcessGroup> group)
    : Communicator(localReplicas, globalReplicas, globalOffset), group_(std::move(group)), barrier_(localReplicas),
      posted_(static_cast<size_t>(localReplicas)), slotOf_(static_cast<size_t>(globalReplicas), -1),
      all_(static_cast<size_t>(globalReplicas)) {
  if (globalOffset < 0 || globalOffset + localReplicas > globalReplicas)
    throw error("globalReplicaOffset {} with {} local replica(s) does not fit globalReplicationFactor {}",
                globalOffset, localReplicas, globalReplicas);
  const int64_t P = group_->size();
  ProcessRecord mine{localReplicas, globalReplicas, globalOffset};
  std::vector<ProcessRecord> all(static_cast<size_t>(P));
  group_->allGather(&mine, sizeof(mine), all.data());
  for (int64_t p = 0; p < P; ++p) {
    const auto &r = all[static_cast<size_t>(p)];
    if (r.localReplicas != localReplicas || r.globalReplicas != globalReplicas)
      throw error("rank {} runs {} local replica(s) of globalReplicationFactor {}, but rank {} runs {} of {}: every "
                  "process must use the same replicatedGraphCount and globalReplicationFactor",
                  p, r.localReplicas, r.globalReplicas, group_->rank(), localReplicas, globalReplicas);
    for (int64_t j = 0; j < r.localReplicas; ++j) {
      const int64_t g = r.offset + j;
      if (g < 0 || g >= globalReplicas || slotOf_[static_cast<size_t>(g)] >= 0)
        throw error("globalReplicaOffset of rank {} ({}) overlaps another process's replicas or leaves the range "
                    "[0, {}): use globalReplicaOffset = rank x replicatedGraphCount",
                    p, r.offset, globalReplicas);
      slotOf_[static_cast<size_t>(g)] = p * localReplicas + j;
    }
  }
  if (P * localReplicas != globalReplicas)
    throw error("{} process(es) x {} local replica(s) do not make globalReplicationFactor {}", P, localReplicas,
                globalReplicas);
}

void ProcessCommunicator::checkSameProgram(uint64_t fingerprint, const std::string &what) {
  std::vector<uint64_t> all(static_cast<size_t>(group_->size()));
  group_->allGather(&fingerprint, sizeof(fingerprint), all.data());
  std::string differ;
  for (size_t p = 0; p < all.size(); ++p)
    if (all[p] != all[0]) differ += (differ.empty() ? "" : ", ") + std::to_string(p);
  if (!differ.empty())
    throw error("the processes of this distributed session disagree on {}: rank(s) {} differ from rank 0 (this is "
                "rank {}); every process must build the same model with the same options",
                what, differ, group_->rank());
}

void ProcessCommunicator::gatherReplicas(const std::vector<const char *> &local, int64_t bytes, char *out) {
  const int64_t L = localReplicas();
  std::vector<char> send(static_cast<size_t>(L * bytes)), recv(static_cast<size_t>(L * bytes * group_->size()));
  for (int64_t j = 0; j < L; ++j)
    std::memcpy(send.data() + j * bytes, local.at(static_cast<size_t>(j)), static_cast<size_t>(bytes));
  group_->allGather(send.data(), L * bytes, recv.data());
  for (size_t g = 0; g < slotOf_.size(); ++g)
    std::memcpy(out + static_cast<int64_t>(g) * bytes, recv.data() + slotOf_[g] * bytes, static_cast<size_t>(bytes));
}

std::shared_ptr<char> ProcessCommunicator::sharedMemory(int64_t bytes, const char *what) {
  return group_->sharedMemory(bytes, what);
}

void ProcessCommunicator::barrier(const char *what) { group_->barrier(what); }

const std::vector<const char *> &ProcessCommunicator::exchange(int64_t local, const void *in, int64_t bytes) {
  posted_[static_cast<size_t>(local)] = in;
  barrier_.wait();
  if (local == 0) {
    try {
      const int64_t R = localReplicas(), chunk = R * bytes;
      const void *send = posted_.front();  // one local replica: its buffer as it is
      if (R > 1 && bytes > 0) {
        if (send_.size() < static_cast<size_t>(chunk)) send_.resize(static_cast<size_t>(chunk));
        for (int64_t j = 0; j < R; ++j)
          std::memcpy(send_.data() + j * bytes, posted_[static_cast<size_t>(j)], static_cast<size_t>(bytes));
        send = send_.data();
      }
      const auto &processes = group_->post(send, chunk);
      for (size_t g = 0; g < all_.size(); ++g)
        all_[g] = processes[static_cast<size_t>(slotOf_[g] / R)] + slotOf_[g] % R * bytes;
    } catch (const std::exception &e) {
      barrier_.abort(std::string("rank ") + std::to_string(group_->rank()) + ": " + e.what());
      throw;
    }
  }
  barrier_.wait();
  return all_;
}

char *ProcessCommunicator::staging(int64_t local, int64_t bytes) {
  if (localReplicas() == 1)  // this process's contribution as it is: straight into the group's buffer
    if (char *p = group_->sendBuffer(bytes)) return p;
  return Communicator::staging(local, bytes);
}

void ProcessCommunicator::release(int64_t local) {
  barrier_.wait();  // every local replica has read the contributions
  if (local == 0) {
    try {
      group_->done();
    } catch (const std::exception &e) {
      barrier_.abort(std::string("rank ") + std::to_string(group_->rank()) + ": " + e.what());
      throw;
    }
  }
  // No local replica changes what it contributed (a gradient read in place) while another process reads it.
  if (localReplicas() > 1) barrier_.wait();
}

} // namespace popart::popx
