// Opx base methods, the Opx registry and the plain-function kernel sugar.
#include "devicex.hpp"
#include "core/registrant.hpp"
#include "popart/cpu/kernel.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/tensor.hpp"
#include <map>
#include <exception>
#include <mutex>
#include <omp.h>

namespace popart::popx {
namespace {

struct OpxEntry {
  OpxFactoryFunc factory;
  std::string tag;
  std::string object;  // shared object of the registrant ("" when unknown)
  std::string error;   // set when two libraries registered the key
};

std::map<std::pair<std::string, std::string>, OpxEntry> &opxRegistry() {
  static std::map<std::pair<std::string, std::string>, OpxEntry> r;
  return r;
}

std::string describeOpx(const std::string &tag, const std::string &object) {
  std::string what = tag.rfind("kernel@", 0) == 0 ? "a kernel function" : demangle(tag.c_str());
  return what + (object.empty() ? "" : " (" + object + ")");
}

std::mutex &registryMutex() {
  static std::mutex m;
  return m;
}

char tagOf(DataType t) {
  switch (t) {
  case DataType::FLOAT: case DataType::DOUBLE: return 'f';
  case DataType::FLOAT16: case DataType::BFLOAT16: return 'h';
  case DataType::INT8: case DataType::INT16: case DataType::INT32: case DataType::INT64: return 'i';
  default: return 'u';
  }
}

} // namespace

void TensorView::checkType(size_t size, char tag) const {
  char mine = tagOf(info_.dataType());
  bool ok = static_cast<int64_t>(size) == dataTypeSize(info_.dataType()) &&
            (mine == tag || (mine == 'h' && tag == 'u'));
  if (!ok) throw error("tensor view of type {} accessed as a {}-byte '{}' type", info_.data_type(), size, tag);
}

TensorView Opx::getInTensor(InIndex i) const { return dv_p->view(op_p->inTensor(i)); }
TensorView Opx::getOutTensor(OutIndex i) const { return dv_p->view(op_p->outTensor(i)); }
void Opx::setOutTensor(OutIndex i, const TensorView &t) const {
  if (t.info() != outInfo(i))
    throw error("setOutTensor({}): tensor is {}, output expects {}", i, t.info().toString(), outInfo(i).toString());
  dv_p->setOutTensor(op_p, i, t);
}
TensorView Opx::createTensor(const TensorInfo &info) const { return dv_p->scratch(info); }

void Opx::parallelFor(int64_t n, const std::function<void(int64_t, int64_t)> &f, int64_t grain) {
  int threads = omp_get_max_threads();
  if (n <= grain || threads <= 1) {
    if (n > 0) f(0, n);
    return;
  }
  int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
  // An exception leaving an OpenMP region terminates the process: keep the
  // first one and rethrow it once the region has ended.
  std::exception_ptr failure;
  std::once_flag first;
#pragma omp parallel for num_threads(static_cast<int>(chunks))
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t b = n * c / chunks, e = n * (c + 1) / chunks;
    try {
      f(b, e);
    } catch (...) {
      std::call_once(first, [&] { failure = std::current_exception(); });
    }
  }
  if (failure) std::rethrow_exception(failure);
}

void verifyOpFailed(Op *op) {
  throw error("Opx cannot lower op {}: unexpected op type or identifier", op->debugName());
}

void OpxManager::registerOpx(const OperatorIdentifier &id, OpxFactoryFunc factory, const char *tag,
                             const void *origin) {
  keepResident(origin);  // a custom-op library stays loaded once it registered
  std::lock_guard<std::mutex> lock(registryMutex());
  auto key = std::make_pair(id.domain, id.type);
  auto &r = opxRegistry();
  std::string object = sharedObjectOf(origin);
  auto it = r.find(key);
  if (it == r.end()) {
    r[key] = {std::move(factory), tag, object, ""};
    return;
  }
  OpxEntry &e = it->second;
  if (e.tag == tag) return;  // a copy of the same library loaded again
  if (e.object.empty() || object.empty() || e.object == object) {
    logging::opx::warn("Opx for {}.{} registered twice in one library; keeping the first", id.domain,
                       id.type);
    return;
  }
  // Throwing here would abort the process (we are inside a library's static
  // initialisers): remember the collision and report it when the op is lowered.
  e.error = formatMessage("the CPU kernel (Opx) of {}.{} is registered twice: by {} and by {}. A custom "
                          "op may not reuse the identifier of a built-in op or of another library's op",
                          {FormatArg(id.domain), FormatArg(id.type), FormatArg(describeOpx(e.tag, e.object)),
                           FormatArg(describeOpx(tag, object))});
  logging::opx::err("{}", e.error);
}

bool OpxManager::hasOpx(const OperatorIdentifier &id) {
  return opxRegistry().count({id.domain, id.type}) != 0;
}

std::unique_ptr<Opx> OpxManager::createOpx(Op *op, Devicex *devicex) {
  auto it = opxRegistry().find({op->opid.domain, op->opid.type});
  if (it == opxRegistry().end())
    throw error("no CPU kernel (Opx) is registered for {}; if it is a custom op, its library must "
                "register one with OpxCreator", toString(op->opid));
  if (!it->second.error.empty()) throw error("{}", it->second.error);
  return it->second.factory(op, devicex);
}

} // namespace popart::popx

namespace popart::cpu {
namespace {

/// The Opx behind POPART_REGISTER_KERNEL: captures views once, calls fn per run.
class KernelOpx final : public popx::Opx {
public:
  KernelOpx(Op *op, popx::Devicex *d, KernelFn fn) : Opx(op, d), fn_(fn) {}
  void grow(popx::Sequence &prog) const override {
    std::vector<popx::TensorView> ins(static_cast<size_t>(op_p->input->maxIndex()));
    std::vector<popx::TensorView> outs(static_cast<size_t>(op_p->output->maxIndex()));
    for (const auto &[i, t] : op_p->input->tensorMap()) ins[i] = getInTensor(i);
    for (const auto &[i, t] : op_p->output->tensorMap()) outs[i] = getOutTensor(i);
    auto ctx = std::make_shared<KernelContext>(*op_p, std::move(ins), std::move(outs));
    KernelFn fn = fn_;
    prog.add([ctx, fn] { fn(*ctx); });
  }

private:
  KernelFn fn_;
};

} // namespace

void registerKernel(const std::vector<OperatorIdentifier> &ids, KernelFn fn) {
  for (const auto &id : ids) {
    // Tag by the function's offset in its library, so that re-registering the
    // same kernel (also from a copy of the library) is harmless.
    std::string tag = "kernel@" + std::to_string(offsetInObject(reinterpret_cast<const void *>(fn)));
    popx::OpxManager::registerOpx(
        id, [fn](Op *op, popx::Devicex *d) { return std::make_unique<KernelOpx>(op, d, fn); },
        tag.c_str(), reinterpret_cast<const void *>(fn));
  }
}

} // namespace popart::cpu
