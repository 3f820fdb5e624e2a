#include "host_copy_ops.hpp"
#include "ops/host_io.hpp"
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensor.hpp"

namespace popart {
namespace {

void loadStream(Graph &g, Tensor *stream) {
  const TensorId id = stream->id;
  Attributes init;
  init.setAttribute("shape", stream->info.shape());
  init.setAttribute("data_type", static_cast<Attributes::Int>(stream->info.dataType()));
  init.setAttribute("init_type", Attributes::Int(0));  // NoInit: HostLoad overwrites it
  const TensorId initId = id + "__hostLoadInit";
  g.createConnectedOp(graphcoreOp("Init"), {}, {{0, initId}}, init, "Init_" + id);
  stream->setTensorType(TensorType::ActGrad);
  Attributes load;
  load.setAttribute("streamTensorId", id);
  g.createConnectedOp(graphcoreOp("HostLoad"), {{0, initId}}, {{0, id}}, load, "HostLoad_" + id);
}

} // namespace

void addHostCopyOps(Ir &ir) {
  Graph &g = ir.getMainGraph();
  const auto streams = g.getTensors().getOfType(TensorType::Stream);
  for (Tensor *t : streams) loadStream(g, t);
  for (const TensorId &id : ir.getDataFlow().anchors()) {
    if (findHostStore(ir, id)) continue;  // a front end (PopXL, popart.ir) stores it already
    Attributes store;
    store.setAttribute("streamTensorId", id);
    g.createConnectedOp(graphcoreOp("HostStore"), {{0, id}}, {}, store, "HostStore_" + id);
  }
  logging::transform::debug("host copy ops: {} HostLoad, {} HostStore", streams.size(),
                            ir.getDataFlow().anchors().size());
}

} // namespace popart
