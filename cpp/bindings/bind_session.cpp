// _InferenceSessionCore (and the shared Session methods), DataFlow, AnchorReturnType, InputShapeInfo.
#include "bindings.hpp"
#include "numpy_util.hpp"
#include "popart/dataflow.hpp"
#include "popart/devicemanager.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/ir.hpp"
#include "popart/optimizer.hpp"
#include "popart/patterns.hpp"
#include "popart/session.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/stepio.hpp"
#include <pybind11/stl.h>

namespace popart::bindings {
namespace {

void bindDataFlow(py::module_ &m) {
  py::enum_<AnchorReturnTypeId>(m, "AnchorReturnTypeId")
      .value("Final", AnchorReturnTypeId::Final)
      .value("EveryN", AnchorReturnTypeId::EveryN)
      .value("All", AnchorReturnTypeId::All)
      .value("Sum", AnchorReturnTypeId::Sum);
  py::class_<AnchorReturnType>(m, "AnchorReturnType")
      .def(py::init<const std::string &, TileSet, ExchangeStrategy>(), py::arg("anchorReturnTypeString"),
           py::arg("tileSet") = TileSet::Compute, py::arg("exchangeStrategy") = ExchangeStrategy::JustInTime)
      .def(py::init<const std::string &, int, TileSet, ExchangeStrategy>(), py::arg("anchorReturnTypeString"),
           py::arg("returnPeriod"), py::arg("tileSet") = TileSet::Compute,
           py::arg("exchangeStrategy") = ExchangeStrategy::JustInTime)
      .def("id", &AnchorReturnType::id)
      .def("tileSet", &AnchorReturnType::tileSet)
      .def("exchangeStrategy", &AnchorReturnType::exchangeStrategy)
      .def("rp", &AnchorReturnType::rp)
      .def("str", &AnchorReturnType::str)
      .def("__repr__", [](const AnchorReturnType &a) {
        return "AnchorReturnType(" + a.str() + (a.rp() ? ", " + std::to_string(a.rp()) : "") + ")";
      });
  py::class_<DataFlow>(m, "DataFlow")
      .def(py::init<>())
      .def(py::init<int, const std::map<TensorId, AnchorReturnType> &>(), py::arg("batchesPerStep"),
           py::arg("anchorTensors"))
      .def(py::init<int, const std::vector<TensorId> &, const AnchorReturnType &>(), py::arg("batchesPerStep"),
           py::arg("anchorIds"), py::arg("anchorReturnType") = AnchorReturnType("All"))
      .def("anchors", &DataFlow::anchors)
      .def("art", &DataFlow::art)
      .def("batchesPerStep", &DataFlow::batchesPerStep)
      .def("isAnchored", &DataFlow::isAnchored)
      .def("nAnchors", &DataFlow::nAnchors)
      .def("setBatchesPerStep", &DataFlow::setBatchesPerStep);
  py::class_<InputShapeInfo>(m, "InputShapeInfo")
      .def(py::init<>())
      .def("add", &InputShapeInfo::add)
      .def("get", &InputShapeInfo::get)
      .def("has", &InputShapeInfo::has);
}

template <class S, class C> void bindSessionMethods(C &c) {
  c.def("prepareDevice", &S::prepareDevice, py::arg("loadEngine") = true, py::call_guard<py::gil_scoped_release>())
      .def("loadEngineAndConnectStreams", &S::loadEngineAndConnectStreams)
      .def("weightsFromHost", &S::weightsFromHost)
      .def("weightsToHost", &S::weightsToHost)
      .def("readWeights", &S::readWeights)
      .def("writeWeights", &S::writeWeights)
      .def("run", py::overload_cast<IStepIO &, const std::string &>(&S::run), py::arg("stepio"),
           py::arg("debugName") = "", py::call_guard<py::gil_scoped_release>())
      .def("run", py::overload_cast<const std::string &, IStepIO &, const std::string &>(&S::run),
           py::arg("programHandle"), py::arg("stepio"), py::arg("debugName") = "",
           py::call_guard<py::gil_scoped_release>())
      .def("modelToHost", &S::modelToHost)
      .def("updateExternallySavedTensorLocations", &S::updateExternallySavedTensorLocations,
           py::arg("fromLocation"), py::arg("toLocation"))
      .def("resetHostWeights", [](S &s, const py::object &model, bool ignore) {
             s.resetHostWeights(py::isinstance<py::bytes>(model) ? std::string(model.cast<py::bytes>())
                                                                 : model.cast<std::string>(), ignore);
           }, py::arg("modelProtoOrFilename"), py::arg("ignoreWeightsInModelWithoutCorrespondingHostWeight") = false)
      .def("getIr", &S::getIrShared, "The session's IR (popart._internal.ir.Ir).")
      .def("getInfo", &S::getInfo)
      .def("hasInfo", &S::hasInfo)
      .def("getTensorIds", &S::getTensorIds)
      .def("getSummaryReport", &S::getSummaryReport, py::arg("resetProfile") = true)
      .def("getSerializedGraph", [](const S &s) { return py::bytes(s.getSerializedGraph()); })
      // PopART's JSON IR: {"maingraph": [ops...], "<subgraph>": [...]}; the only format PopART has.
      .def("_serializeIr", [](const S &s, IrSerializationFormat) { return s.getSerializedGraph(); },
           py::arg("format"))
      .def("getCycleCount", &S::getCycleCount, py::arg("id") = "")
      .def("setRandomSeed", &S::setRandomSeed, py::arg("seedValue"))
      .def("getRandomSeed", &S::getRandomSeed)
      .def("getRNGState", &S::getRNGState)
      .def("setRNGState", &S::setRNGState)
      .def("broadcastWeights", &S::broadcastWeights, py::arg("rootRank") = 0, py::call_guard<py::gil_scoped_release>())
      .def("getDevice", &S::getDevice)
      .def("areHostWeightsInSync", &S::areHostWeightsInSync)
      .def("markHostWeightsInSync", &S::markHostWeightsInSync)
      .def("markHostWeightsOutOfSync", &S::markHostWeightsOutOfSync)
      .def("copyDeviceWeightsToHost", &S::copyDeviceWeightsToHost)
      .def("getAllTensorIds", &S::getAllTensorIds)
      .def("getReport", &S::getReport)
      .def("checkInplacingAmbiguity", &S::checkInplacingAmbiguity)
      .def("connectStreamToCallback", [](S &s, const std::string &id, py::function cb, unsigned index) {
             // Called from run() without the GIL: take it, hand the buffer over as a capsule.
             auto fn = std::make_shared<py::function>(std::move(cb));
             s.connectStreamToCallback(id, [fn](void *p) {
               py::gil_scoped_acquire gil;
               (*fn)(py::capsule(p));
             }, index);
           }, py::arg("streamHandle"), py::arg("callback"), py::arg("index") = 0)
      .def("saveExecutable", &S::saveExecutable, py::arg("path"), py::arg("savePopartMetadata") = true,
           py::arg("saveVariables") = true)
      .def("loadExecutable", &S::loadExecutable, py::arg("filename"))
      .def("compileAndExport", [](S &s, const std::string &f, py::object) { s.compileAndExport(f); },
           py::arg("filename"), py::arg("err") = py::none())
      .def("saveVariables", &S::saveVariables, py::arg("path"))
      .def("updateEngineCache", &S::updateEngineCache)
      .def("setEngineIsLoaded", &S::setEngineIsLoaded, py::arg("isLoaded"))
      .def("_getNumpyDtype", [](const S &s, const TensorId &id) { return numpyDtypeOf(s.getInfo(id).dataType()); })
      .def("_irDataFlow", [](const S &s) { return s.getIr().getDataFlow(); })
      .def("_irSessionOptions", [](const S &s) { return s.getIr().getSessionOptions(); });
}

std::string modelBytes(const py::object &fnModel) {
  if (py::isinstance<py::bytes>(fnModel)) return std::string(fnModel.cast<py::bytes>());
  return fnModel.cast<std::string>();
}

} // namespace

void bindSession(py::module_ &m) {
  bindDataFlow(m);
  py::class_<Session> base(m, "_SessionCore");
  py::class_<InferenceSession, Session> inf(m, "_InferenceSessionCore");
  inf.def(py::init([](const py::object &fnModel, const DataFlow &df, std::shared_ptr<DeviceInfo> device,
                      const InputShapeInfo &shapes, const SessionOptions &opts, const Patterns &patterns,
                      const std::string &name) {
            std::string bytes = modelBytes(fnModel);
            py::gil_scoped_release release;
            return InferenceSession::createFromOnnxModel(bytes, df, std::move(device), shapes, opts, patterns, name);
          }),
          py::arg("fnModel"), py::arg("dataFlow"), py::arg("deviceInfo"),
          py::arg("inputShapeInfo") = InputShapeInfo(), py::arg("userOptions") = SessionOptions(),
          py::arg("patterns") = Patterns(), py::arg("name") = "inference");
  // From an Ir a front end built (popart._internal.ir.Ir, held by shared_ptr).
  inf.def(py::init([](std::shared_ptr<Ir> ir, std::shared_ptr<DeviceInfo> device, const std::string &name) {
            py::gil_scoped_release release;
            return InferenceSession::createFromIr(std::move(ir), std::move(device), name);
          }),
          py::arg("ir"), py::arg("deviceInfo"), py::arg("name") = "fromIr");
  bindSessionMethods<InferenceSession>(inf);

  py::class_<TrainingSession, Session> train(m, "_TrainingSessionCore");
  train.def(py::init([](const py::object &fnModel, const DataFlow &df, const TensorId &loss, const Optimizer &opt,
                        std::shared_ptr<DeviceInfo> device, const InputShapeInfo &shapes, const SessionOptions &opts,
                        const Patterns &patterns, const std::string &name) {
              std::string bytes = modelBytes(fnModel);
              py::gil_scoped_release release;
              return TrainingSession::createFromOnnxModel(bytes, df, loss, opt, std::move(device), shapes, opts,
                                                          patterns, name);
            }),
            py::arg("fnModel"), py::arg("dataFlow"), py::arg("loss"), py::arg("optimizer"), py::arg("deviceInfo"),
            py::arg("inputShapeInfo") = InputShapeInfo(), py::arg("userOptions") = SessionOptions(),
            py::arg("patterns") = Patterns(), py::arg("name") = "training");
  train.def(py::init([](std::shared_ptr<Ir> ir, std::shared_ptr<DeviceInfo> device, const std::string &name,
                        const Optimizer *optimizer) {
              py::gil_scoped_release release;
              return TrainingSession::createFromIr(std::move(ir), std::move(device), name, optimizer);
            }),
            py::arg("ir"), py::arg("deviceInfo"), py::arg("name") = "fromIr", py::arg("optimizer") = nullptr);
  bindSessionMethods<TrainingSession>(train);
  train.def("updateOptimizerFromHost", &TrainingSession::updateOptimizerFromHost, py::arg("optimizer"));
}

} // namespace popart::bindings
