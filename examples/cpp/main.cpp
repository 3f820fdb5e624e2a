// Embedding popart-cpu in a C++ program.
//   1. Inference: load an ONNX model, run it with an InferenceSession, print the outputs.
//   2. Training (with --train): a TrainingSession with popart::SGD minimises the model's
//      scalar loss tensor for a few steps, printing the loss of each step; --save writes
//      the trained model (modelToHost).
//
// Usage: popart_example model.onnx [--train LOSS_ID [--steps N] [--lr RATE] [--save OUT.onnx]]
// Every FLOAT input (not an initializer) is filled with x[i] = ((i % 17) - 8) / 4, so the
// results can be checked elsewhere; training feeds the same values at every step.
// Each output prints as two lines:
//   output <id> <TYPE> [d0,d1,...]
//   <values separated by spaces>
// and each training step as one line (the loss before that step's update):
//   step <i> loss <value>
#include <popart/builder.hpp>
#include <popart/dataflow.hpp>
#include <popart/devicemanager.hpp>
#include <popart/error.hpp>
#include <popart/inputshapeinfo.hpp>
#include <popart/optimizer.hpp>
#include <popart/patterns.hpp>
#include <popart/session.hpp>
#include <popart/sessionoptions.hpp>
#include <popart/stepio.hpp>

#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
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

/// Enough digits to read the float back exactly.
std::string formatFloat(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

void printOutputs(const popart::Session &session, const HostTensors &outputs) {
  for (const auto &[id, values] : outputs.data) {
    popart::TensorInfo info = session.getInfo(id);
    std::cout << "output " << id << " " << info.data_type() << " " << info.shapeString() << "\n";
    for (size_t i = 0; i < values.size(); ++i) std::cout << (i ? " " : "") << formatFloat(values[i]);
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

// ---- 2. Training ----
struct TrainingOptions {
  popart::TensorId loss;         // a scalar tensor of the model, e.g. an L1 loss
  int steps = 5;
  float learningRate = 0.05f;
  std::string savePath;          // empty: do not write the trained model
};

void runTraining(const std::string &modelPath, const TrainingOptions &options) {
  auto model = popart::Builder::createFromOnnxModel(modelPath);
  // Anchor the loss: one value per run() (batchesPerStep = 1).
  popart::DataFlow dataFlow(1, {options.loss}, popart::AnchorReturnType("All"));
  // Plain SGD: w -= learningRate * dLoss/dw. (value, isConst): a non-const learning
  // rate could be changed later with updateOptimizerFromHost without recompiling.
  popart::SGD optimizer({{"defaultLearningRate", {options.learningRate, false}}});

  auto device = popart::DeviceManager::createDeviceManager().createCpuDevice();
  auto session = popart::TrainingSession::createFromOnnxModel(
      modelPath, dataFlow, options.loss, optimizer, device, popart::InputShapeInfo(),
      popart::SessionOptions(), popart::Patterns(popart::PatternsLevel::Default));
  session->prepareDevice();  // also copies the initial weights to the device

  HostTensors inputs = makeInputs(*model);
  HostTensors outputs;
  requireFloat(options.loss, session->getInfo(options.loss).dataType());
  const std::vector<float> &loss = outputs.add(options.loss, session->getInfo(options.loss).shape());
  popart::StepIO stepio(inputs.refs(), outputs.refs());
  for (int step = 0; step < options.steps; ++step) {
    session->run(stepio);  // forward, backward and the SGD update of every weight
    std::cout << "step " << step << " loss " << formatFloat(loss.at(0)) << "\n";
  }
  if (!options.savePath.empty()) session->modelToHost(options.savePath);
}

/// Parses "model.onnx [--train LOSS [--steps N] [--lr RATE] [--save PATH]]".
std::optional<TrainingOptions> parseTraining(int argc, char **argv) {
  std::optional<TrainingOptions> training;
  for (int i = 2; i < argc; i += 2) {
    std::string flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
    std::string value = argv[i + 1];
    if (flag == "--train") {
      training.emplace();
      training->loss = value;
    } else if (!training) {
      throw std::invalid_argument(flag + " needs --train first");
    } else if (flag == "--steps") {
      training->steps = std::stoi(value);
    } else if (flag == "--lr") {
      training->learningRate = std::stof(value);
    } else if (flag == "--save") {
      training->savePath = value;
    } else {
      throw std::invalid_argument("unknown option " + flag);
    }
  }
  return training;
}

} // namespace

int main(int argc, char **argv) {
  std::optional<TrainingOptions> training;
  try {
    if (argc < 2) throw std::invalid_argument("no model given");
    training = parseTraining(argc, argv);
  } catch (const std::exception &e) {
    std::cerr << e.what() << "\nusage: " << argv[0]
              << " model.onnx [--train LOSS_ID [--steps N] [--lr RATE] [--save OUT.onnx]]\n";
    return 2;
  }
  try {
    runInference(argv[1]);
    if (training) runTraining(argv[1], *training);
  } catch (const popart::error &e) {
    std::cerr << "popart error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
