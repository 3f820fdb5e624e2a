// Embedding popart-cpu in a C++ program.
//   1. Inference: load an ONNX model, run it with an InferenceSession, print the outputs.
//   2. Training with TrainingSession + SGD: TODO(#5) added once TrainingSession exists.
//
// Usage: popart_example model.onnx
// Every FLOAT input (not an initializer) is filled with x[i] = ((i % 17) - 8) / 4, so the
// results can be checked elsewhere. Each output prints as two lines:
//   output <id> <TYPE> [d0,d1,...]
//   <values separated by spaces>
#include <popart/builder.hpp>
#include <popart/dataflow.hpp>
#include <popart/devicemanager.hpp>
#include <popart/error.hpp>
#include <popart/inputshapeinfo.hpp>
#include <popart/patterns.hpp>
#include <popart/session.hpp>
#include <popart/sessionoptions.hpp>
#include <popart/stepio.hpp>

#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

/// Host memory for the session's inputs or outputs, wrapped as popart::IArray.
struct HostTensors {
  std::map<popart::TensorId, std::vector<float>> data;
  std::map<popart::TensorId, popart::NDArrayWrapper<float>> arrays;

  std::vector<float> &add(const popart::TensorId &id, const popart::Shape &shape) {
    popart::TensorInfo info(popart::DataType::FLOAT, shape);
    std::vector<float> &values = data[id];
    values.resize(static_cast<size_t>(info.nelms()));
    arrays.emplace(id, popart::NDArrayWrapper<float>(values.data(), info));
    return values;
  }
  /// The map popart::StepIO takes.
  std::map<popart::TensorId, popart::IArray &> refs() {
    std::map<popart::TensorId, popart::IArray &> m;
    for (auto &[id, array] : arrays) m.emplace(id, array);
    return m;
  }
};

void requireFloat(const popart::TensorId &id, popart::DataType type) {
  if (type != popart::DataType::FLOAT)
    throw popart::error("tensor '{}' is {}: this example handles FLOAT tensors only", id,
                        popart::toString(type));
}

/// The model's non-initializer inputs, filled with the documented pattern.
HostTensors makeInputs(const popart::Builder &model) {
  HostTensors inputs;
  for (const auto &id : model.getInputTensorIds()) {
    if (model.isInitializer(id)) continue;
    requireFloat(id, model.getTensorDataType(id));
    std::vector<float> &x = inputs.add(id, model.getTensorShape(id));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 17) - 8) / 4.0f;
  }
  return inputs;
}

void printOutputs(const popart::Session &session, const HostTensors &outputs) {
  for (const auto &[id, values] : outputs.data) {
    popart::TensorInfo info = session.getInfo(id);
    std::cout << "output " << id << " " << info.data_type() << " " << info.shapeString() << "\n";
    for (size_t i = 0; i < values.size(); ++i) {
      char text[32];
      std::snprintf(text, sizeof(text), "%.9g", values[i]);
      std::cout << (i ? " " : "") << text;
    }
    std::cout << "\n";
  }
}

// ---- 1. Inference ----
void runInference(const std::string &modelPath) {
  auto model = popart::Builder::createFromOnnxModel(modelPath);
  std::vector<popart::TensorId> outputIds = model->getOutputTensorIds();
  popart::DataFlow dataFlow(1, outputIds, popart::AnchorReturnType("All"));

  auto device = popart::DeviceManager::createDeviceManager().createCpuDevice();
  auto session = popart::InferenceSession::createFromOnnxModel(
      modelPath, dataFlow, device, popart::InputShapeInfo(), popart::SessionOptions(),
      popart::Patterns(popart::PatternsLevel::Default));
  session->prepareDevice();

  HostTensors inputs = makeInputs(*model);
  HostTensors outputs;
  for (const auto &id : outputIds) {
    requireFloat(id, session->getInfo(id).dataType());
    outputs.add(id, session->getInfo(id).shape());
  }
  popart::StepIO stepio(inputs.refs(), outputs.refs());
  session->run(stepio);
  printOutputs(*session, outputs);
}

// ---- 2. Training: TODO(#5) TrainingSession with a loss and popart::SGD, then modelToHost ----

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " model.onnx\n";
    return 2;
  }
  try {
    runInference(argv[1]);
  } catch (const popart::error &e) {
    std::cerr << "popart error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
