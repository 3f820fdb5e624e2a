// Rewrites of an ONNX model before a session is made from it (PopART's GraphTransformer).
#pragma once
#include "popart/names.hpp"
#include <memory>
#include <string>
#include <vector>

namespace popart {

class GraphTransformer {
public:
  /// `modelProtoOrFilename`: serialised ModelProto bytes or a path to an .onnx file.
  explicit GraphTransformer(const std::string &modelProtoOrFilename);
  ~GraphTransformer();
  std::string getModelProto() const;
  /// Drops graph inputs no node reads (and their initializers).
  void removeUnusedInputs();
  /// BatchNormalization nodes with one output get the training outputs (mean, var, saved mean, saved var).
  void prepareNodesForTraining();
  /// Every FLOAT tensor (inputs, outputs, value infos, initializers, Constant values, Cast targets) becomes FLOAT16.
  void convertFloatsToHalfs();
  /// The initializers `ids` become Constant nodes (and stop being graph inputs).
  void convertInitializersToConstants(const std::vector<TensorId> &ids);
  /// Every integer initializer becomes a Constant node.
  void convertAllFixedPointInitializersToConstants();
  /// The bytes of initializers `ids` move to `fn`; the model refers to them (data_location EXTERNAL).
  void saveInitializersExternally(const std::vector<TensorId> &ids, const std::string &fn);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace popart
