// Test library: custom.ops Triple (version 1), y = 3 x, with its Opx. The test
// dlclose's it after loading and then uses the op: the registrations must stay
// valid (popart keeps a library resident once it registered something).
#include <popart/opmanager.hpp>
#include <popart/popx/opx.hpp>

namespace {

const popart::OperatorIdentifier Triple_1 = {"custom.ops", "Triple", 1};

class TripleOp : public popart::Op {
public:
  using popart::Op::Op;
  std::unique_ptr<popart::Op> clone() const final { return std::make_unique<TripleOp>(*this); }
  void setup() final { outInfo(0) = inInfo(0); }
};

class TripleOpx : public popart::popx::Opx {
public:
  using popart::popx::Opx::Opx;
  void grow(popart::popx::Sequence &prog) const final {
    const float *x = getInTensor(0).data<float>();
    float *y = getOutTensor(0).data<float>();
    int64_t n = outInfo(0).nelms();
    prog.add([=] {
      for (int64_t i = 0; i < n; ++i) y[i] = 3.0f * x[i];
    });
  }
};

popart::OpCreator<TripleOp> opCreator(
    popart::OpDefinitions({{Triple_1, popart::OpDefinition({{"input", {popart::DataType::FLOAT}}},
                                                          {{"output", {popart::DataType::FLOAT}}}, {})}}),
    [](const popart::OpCreatorInfo &info) { return std::make_unique<TripleOp>(info.opid, info.settings); });
popart::popx::OpxCreator<TripleOpx> opxCreator(Triple_1);

} // namespace
