// Pad (ai.onnx 2, 11, 13, 18, 19, 21): y[o] = x[map(o - pad_begin)] per axis, where
// map is identity inside x and, outside, the constant, edge (clamp), reflect
// (mirror without repeating the border) or wrap (modulo). Negative pads crop.
// Gradient (PadGrad): dx[i] = sum of dy[o] over every o with map(o - pad_begin) = i.
#include "ops/pad.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

PadOp::Mode parsePadMode(const std::string &m, int version) {
  if (m == "constant") return PadOp::Mode::Constant;
  if (m == "reflect") return PadOp::Mode::Reflect;
  if (m == "edge") return PadOp::Mode::Edge;
  if (m == "wrap" && version >= 19) return PadOp::Mode::Wrap;
  throw error("attribute mode='{}' is not supported at opset {} (expected constant, reflect, edge{})", m,
              version, version >= 19 ? " or wrap" : "");
}

} // namespace

void PadOp::setup() {
  const int64_t rank = inRank(0);
  mode_ = parsePadMode(attr<Attributes::String>("mode", "constant"), static_cast<int>(opid.version));
  std::vector<int64_t> pads = opid.version < 11 ? attr<Attributes::Ints>("pads") : inConstInts(1);
  std::vector<int64_t> axes;
  if (opid.version >= 18 && hasInput(3)) axes = shapeutil::normaliseAxes(inConstInts(3), rank);
  else
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  if (pads.size() != 2 * axes.size())
    throw error("pads {} must have 2 values per padded axis ({} axes)", pads, axes.size());
  if (valueFromInput() && inInfo(2).nelms() != 1)
    throw error("constant_value must be a scalar, got shape {}", inInfo(2).shapeString());
  if (valueFromInput() && inInfo(2).dataType() != inInfo(0).dataType())
    throw error("constant_value has type {}, data has type {}", inInfo(2).data_type(), inInfo(0).data_type());
  begin_.assign(rank, 0);
  end_.assign(rank, 0);
  Shape out = inShape(0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = axes[i], d = out[a];
    begin_[a] = pads[i];
    end_[a] = pads[i + axes.size()];
    out[a] = d + begin_[a] + end_[a];
    if (out[a] < 0) throw error("pads {} crop axis {} (size {}) below zero", pads, a, d);
    const int64_t kept = d - std::max<int64_t>(0, -begin_[a]) - std::max<int64_t>(0, -end_[a]);
    if (mode_ != Mode::Constant && kept <= 0 && out[a] > 0)
      throw error("mode '{}' cannot pad axis {} which is empty after cropping",
                  attr<Attributes::String>("mode", "constant"), a);
  }
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

std::vector<std::unique_ptr<Op>> PadOp::getGradOps() { return gradOps<PadGradOp>(*this); }

POPART_REGISTER_OP(PadOp, onnxOp("Pad", {2, 11, 13, 18, 19, 21}), shapeutil::copyableTypes());
POPART_REGISTER_OP(PadGradOp, internalOp("PadGrad"));
} // namespace popart
