// modelToHost: the imported model with its initializers replaced by the
// session's current weights. Initializers the model kept in external files stay
// there: their files get the new values (same offsets and lengths).
#include "import.hpp"
#include "model.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/optimizer.hpp"
#include "popart/tensor.hpp"
#include <filesystem>

namespace popart {
namespace {

onnxpb::Tensor externalRef(const onnxpb::Tensor &init, const onnxpb::ExternalDataRef &ref) {
  onnxpb::Tensor t;
  t.name = init.name;
  t.dims = init.dims;
  t.dataType = init.dataType;
  t.docString = init.docString;
  t.dataLocation = 1;
  t.externalData = {{"location", ref.location}, {"offset", std::to_string(ref.offset)},
                    {"length", std::to_string(ref.length)}};
  return t;
}

const Tensor *hostWeight(const Ir &ir, const std::string &name) {
  const Graph &g = ir.getMainGraph();
  if (!g.getTensors().contains(name)) return nullptr;
  const Tensor *t = g.getTensor(name);
  return t->hasTensorData() ? t : nullptr;
}

// The host value of t as stored: a Variable with VariableSettings holds one
// value per group of replicas, [groups, *shape] as its initializer `dims`.
TensorInfo hostInfo(const Tensor &t, const std::vector<int64_t> &dims) {
  const auto size = static_cast<int64_t>(t.tensorData().size());
  if (size == t.info.nbytes()) return t.info;
  TensorInfo asInitializer(t.info.dataType(), dims);
  if (asInitializer.nbytes() == size) return asInitializer;
  Shape copies = t.info.shape();  // optimizer state of such a weight: one per group
  copies.insert(copies.begin(), size / std::max<int64_t>(t.info.nbytes(), 1));
  return TensorInfo(t.info.dataType(), copies);
}

} // namespace

std::string exportModelWithWeights(const Ir &ir) {
  const onnxpb::Model *orig = ir.getModel();
  if (!orig) throw error("modelToHost: the IR was built op by op and has no ONNX model to export; read the weights with readWeights or weightsToHost instead");
  onnxpb::Model m = *orig;
  const Graph &g = ir.getMainGraph();
  std::vector<onnxpb::ExternalChunk> writeBack;
  for (auto &init : m.graph.initializer) {
    const Tensor *t = hostWeight(ir, init.name);
    auto ext = orig->externalInitializers.find(init.name);
    if (ext != orig->externalInitializers.end()) {
      if (t) {
        std::string bytes = packedRawData(hostInfo(*t, init.dims), t->tensorData().data());
        if (static_cast<int64_t>(bytes.size()) != ext->second.length)
          throw error("modelToHost: weight '{}' has {} bytes, its external data in '{}' {}", init.name,
                      bytes.size(), ext->second.path, ext->second.length);
        writeBack.push_back({ext->second.path, ext->second.offset, std::move(bytes)});
      }
      init = externalRef(init, ext->second);
      continue;
    }
    if (!t) continue;
    onnxpb::Tensor fresh;
    fresh.name = init.name;
    fresh.dims = init.dims;
    fresh.dataType = init.dataType;
    fresh.docString = init.docString;
    fresh.hasRawData = true;
    fresh.rawData = packedRawData(hostInfo(*t, init.dims), t->tensorData().data());
    init = std::move(fresh);
  }
  // Optimizer state travels with the weights, so training can resume from the file.
  for (const Tensor *t : g.getTensors().getOfType(TensorType::Variable)) {
    if (!isOptimizerStateId(t->id) || !t->hasTensorData()) continue;
    onnxpb::Tensor state;
    const TensorInfo info = hostInfo(*t, t->info.shape());
    state.name = t->id;
    state.dims = info.shape();
    state.dataType = onnxDataType(t->info.dataType());
    state.hasRawData = true;
    state.rawData = packedRawData(info, t->tensorData().data());
    m.graph.initializer.push_back(std::move(state));
  }
  std::string bytes = onnxpb::serializeModel(m);
  onnxpb::writeExternalChunks(writeBack, "modelToHost");
  return bytes;
}

void moveExternalData(const Ir &ir, onnxpb::Model &model, const std::string &from, const std::string &to) {
  const std::string what = "updateExternallySavedTensorLocations";
  std::error_code ec;
  if (to.empty() || std::filesystem::exists(to, ec))
    throw error("{}: the new location '{}' already exists; give the name of a new file", what, to);
  auto same = [&](const onnxpb::ExternalDataRef &r) {
    return r.location == from || std::filesystem::equivalent(r.path, from, ec);
  };
  std::vector<onnxpb::ExternalChunk> chunks;
  std::vector<onnxpb::ExternalDataRef *> moved;
  std::string known;
  int64_t offset = 0;
  for (const auto &init : model.graph.initializer) {
    auto it = model.externalInitializers.find(init.name);
    if (it == model.externalInitializers.end()) continue;
    known += (known.empty() ? "'" : ", '") + it->second.location + "'";
    if (!same(it->second)) continue;
    const Tensor *t = hostWeight(ir, init.name);
    std::string bytes = t ? packedRawData(hostInfo(*t, init.dims), t->tensorData().data()) : init.rawData;
    chunks.push_back({std::filesystem::absolute(to).string(), offset, bytes});
    moved.push_back(&it->second);
    offset += static_cast<int64_t>(bytes.size());
  }
  if (moved.empty())
    throw error("{}: no tensor of the model is saved externally in '{}' (external locations: {})", what, from,
                known.empty() ? "none" : known);
  onnxpb::writeExternalChunks(chunks, what);
  for (size_t i = 0; i < moved.size(); ++i)
    *moved[i] = {to, chunks[i].path, chunks[i].offset, static_cast<int64_t>(chunks[i].bytes.size())};
}

} // namespace popart
