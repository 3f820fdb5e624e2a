// Test library: custom.ops Thrower (version 1), y = x, that throws from the
// place named by its attribute `where` (constructor, setup, opx, grow, run,
// parallel: inside parallelFor at run time; pattern: a pattern that erases the
// op, then throws) an exception of the kind named by
// `what` (std: std::runtime_error, int: a non-std throw). Every case must give
// a popart error naming the op, never terminate the process.
#include <popart/graph.hpp>
#include <popart/opmanager.hpp>
#include <popart/patterns.hpp>
#include <popart/popx/opx.hpp>

#include <stdexcept>
#include <string>

namespace {

const popart::OperatorIdentifier Thrower_1 = {"custom.ops", "Thrower", 1};

[[noreturn]] void userThrow(const std::string &what, const std::string &where) {
  if (what == "int") throw 42;
  throw std::runtime_error("user code failed in " + where);
}

class ThrowerOp : public popart::Op {
public:
  ThrowerOp(const popart::OperatorIdentifier &opid, const popart::Op::Settings &settings, std::string where,
            std::string what)
      : popart::Op(opid, settings), where(std::move(where)), what(std::move(what)) {
    if (this->where == "constructor") userThrow(this->what, this->where);
  }
  std::unique_ptr<popart::Op> clone() const final { return std::make_unique<ThrowerOp>(*this); }
  void setup() final {
    if (where == "setup") userThrow(what, where);
    outInfo(0) = inInfo(0);
  }
  std::string where, what;
};

class ThrowerOpx : public popart::popx::Opx {
public:
  ThrowerOpx(popart::Op *op, popart::popx::Devicex *d) : popart::popx::Opx(op, d) {
    if (getOp<ThrowerOp>().where == "opx") userThrow(getOp<ThrowerOp>().what, "opx");
  }
  void grow(popart::popx::Sequence &prog) const final {
    std::string where = getOp<ThrowerOp>().where, what = getOp<ThrowerOp>().what;
    if (where == "grow") userThrow(what, where);
    const float *x = getInTensor(0).data<float>();
    float *y = getOutTensor(0).data<float>();
    int64_t n = outInfo(0).nelms();
    prog.add([=] {
      if (where == "run") userThrow(what, where);
      parallelFor(n, [&](int64_t b, int64_t e) {
        if (where == "parallel") userThrow(what, where);
        for (int64_t i = b; i < e; ++i) y[i] = x[i];
      }, /*grain=*/1);
    });
  }
};

// Erases the op, then throws: popart must not touch the erased op to report the error.
class EraseThenThrow : public popart::Pattern {
public:
  bool matches(popart::Op *op) const final {
    auto *t = dynamic_cast<ThrowerOp *>(op);
    return t && t->where == "pattern";
  }
  bool apply(popart::Op *op) const final {
    std::string what = dynamic_cast<ThrowerOp *>(op)->what;
    op->getGraph().eraseOp(op->id);
    userThrow(what, "pattern");
  }
};
POPART_REGISTER_PATTERN(EraseThenThrow, "ThrowerEraseThenThrow", false, popart::PatternsLevel::Default);

popart::OpCreator<ThrowerOp> opCreator(
    popart::OpDefinitions({{Thrower_1, popart::OpDefinition({{"input", {}}}, {{"output", {}}}, {})}}),
    [](const popart::OpCreatorInfo &info) {
      return std::make_unique<ThrowerOp>(info.opid, info.settings,
                                         info.attributes.getAttribute<popart::Attributes::String>("where"),
                                         info.attributes.getAttribute<popart::Attributes::String>("what"));
    });
popart::popx::OpxCreator<ThrowerOpx> opxCreator(Thrower_1);

} // namespace
