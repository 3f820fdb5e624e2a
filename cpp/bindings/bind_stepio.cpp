// PyStepIO, PyStepIOCallback and PyWeightsIO over numpy arrays.
#include "bindings.hpp"
#include "numpy_util.hpp"
#include "popart/stepio.hpp"
#include <pybind11/functional.h>
#include <pybind11/stl.h>

namespace popart::bindings {
namespace {

/// Step IO over dicts of numpy arrays; keeps the arrays alive.
class PyStepIO : public StepIOGeneric {
public:
  PyStepIO(const std::map<TensorId, py::array> &inputs, const std::map<TensorId, py::array> &outputs) {
    for (const auto &[id, a] : inputs) add(id, a, true);
    for (const auto &[id, a] : outputs) add(id, a, false);
  }

private:
  void add(const TensorId &id, const py::array &given, bool isInput) {
    contiguous(given, (isInput ? "input '" : "output '") + id + "'");
    if (!isInput) requireNativeOrder(given, "output array for '" + id + "'");
    py::array a = isInput ? nativeOrder(given) : given;
    if (!isInput && !a.writeable()) throw error("output array for '{}' is read-only", id);
    Shape shape(a.shape(), a.shape() + a.ndim());
    Buffer b{const_cast<void *>(a.data()), TensorInfo(dataTypeOf(a.dtype()), shape)};
    if (isInput) addInput(id, b);
    else addOutput(id, b);
    keep_.push_back(a);
  }
  std::vector<py::array> keep_;
};

/// Calls the user's input callback (under the GIL: run() releases it) and
/// copies the array it returns.
ConstVoidData inputFromPython(const py::function &callback, const TensorId &id, bool prefetch) {
  py::gil_scoped_acquire gil;
  py::object r = callback(id, prefetch);
  py::array a = py::array::ensure(r);
  if (!a) throw runtime_error("input callback for '{}' must return a numpy array", id);
  a = nativeOrder(a);
  contiguous(a, "array returned by the input callback for '" + id + "'");
  Shape shape(a.shape(), a.shape() + a.ndim());
  std::vector<char> bytes(static_cast<const char *>(a.data()), static_cast<const char *>(a.data()) + a.nbytes());
  ConstVoidData d;
  d.store(std::move(bytes), TensorInfo(dataTypeOf(a.dtype()), shape));
  return d;
}

class PyWeightsIO : public WeightsIO {
public:
  explicit PyWeightsIO(const std::map<TensorId, py::array> &weights) {
    for (const auto &[id, a] : weights) {
      contiguous(a, "weight '" + id + "'");
      requireNativeOrder(a, "weight array for '" + id + "'");
      MutableVoidData d;
      d.data = const_cast<void *>(a.data());
      d.info = TensorInfo(dataTypeOf(a.dtype()), Shape(a.shape(), a.shape() + a.ndim()));
      insert(id, d);
      keep_.push_back(a);
    }
  }

private:
  std::vector<py::array> keep_;
};

} // namespace

void bindStepIO(py::module_ &m) {
  py::class_<IStepIO>(m, "IStepIO", "Base class of the objects session.run() reads inputs from and writes anchors to.");
  py::class_<PyStepIO, IStepIO>(m, "PyStepIO",
                                "Inputs and anchors of one session.run() as dicts of numpy arrays. Each input "
                                "array holds every micro-batch of the step: leading dimensions [batchesPerStep, "
                                "accumulationFactor, replicationFactor] (size-1 ones left out) before the "
                                "tensor's shape. Output arrays are those of session.initAnchorArrays().")
      .def(py::init<const std::map<TensorId, py::array> &, const std::map<TensorId, py::array> &>(),
           py::arg("inputs"), py::arg("outputs"),
           "`inputs`: dict of input tensor id to numpy array; `outputs`: dict of anchor id to a writable array. "
           "The arrays are used in place (inputs are converted to native byte order if needed).")
      .def("enableRuntimeAsserts", &PyStepIO::enableRuntimeAsserts, py::arg("enable"),
           "With False, run() skips checking the arrays' shapes and types against the model (default: checked).");
  py::class_<StepIOCallback, IStepIO>(m, "PyStepIOCallback",
                                      "Inputs and anchors of session.run() through Python callbacks, called for "
                                      "every micro-batch instead of reading whole-step arrays.")
      .def(py::init([](py::function in, py::function inComplete, py::function out, py::function outComplete) {
             return std::make_unique<StepIOCallback>(
                 [in](TensorId id, bool prefetch) { return inputFromPython(in, id, prefetch); },
                 [inComplete](TensorId id) { py::gil_scoped_acquire g; inComplete(id); },
                 [out](TensorId id) {
                   py::gil_scoped_acquire g;
                   py::array a = py::array::ensure(out(id));
                   if (!a) throw runtime_error("output callback for '{}' must return a numpy array", id);
                   contiguous(a, "array returned by the output callback for '" + id + "'");
                   requireNativeOrder(a, "array returned by the output callback for '" + id + "'");
                   if (!a.writeable()) throw error("output callback for '{}' returned a read-only array", id);
                   MutableVoidData d;
                   d.data = a.mutable_data();
                   d.info = TensorInfo(dataTypeOf(a.dtype()), Shape(a.shape(), a.shape() + a.ndim()));
                   return d;
                 },
                 [outComplete](TensorId id) { py::gil_scoped_acquire g; outComplete(id); });
           }),
           py::arg("input_callback"), py::arg("input_complete_callback"), py::arg("output_callback"),
           py::arg("output_complete_callback"),
           "input_callback(id, prefetch) returns the numpy array of the next micro-batch of input `id`; "
           "input_complete_callback(id) is called once it has been read; output_callback(id) returns a "
           "writable array for the next micro-batch of anchor `id`; output_complete_callback(id) is called "
           "once it is written.");
  py::class_<IWeightsIO>(m, "IWeightsIO", "Base class of the weight containers of readWeights/writeWeights.");
  py::class_<PyWeightsIO, IWeightsIO>(m, "PyWeightsIO",
                                      "Weights as a dict of tensor id to numpy array, for session.readWeights "
                                      "(filled in place) and session.writeWeights (read).")
      .def(py::init<const std::map<TensorId, py::array> &>(), py::arg("weights"),
           "`weights`: dict of weight id to a contiguous numpy array of the weight's shape and type.");
}

} // namespace popart::bindings
