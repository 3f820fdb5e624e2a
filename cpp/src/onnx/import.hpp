// ONNX model -> IR graphs.
#pragma once
#include <string>
#include <vector>

namespace popart {
class Ir;
class TensorInfo;
namespace onnxpb {
struct Model;
struct Tensor;
} // namespace onnxpb

/// Builds the main graph (and sub-graphs) of `ir` from its ONNX model.
void importModel(Ir &ir);
/// The same from `source` (a model equal to the IR's, whose initializers may have no data).
void importModel(Ir &ir, const onnxpb::Model &source);
/// Decodes a TensorProto's values (raw_data or typed fields) into host bytes.
std::vector<char> tensorBytes(const onnxpb::Tensor &t, const TensorInfo &info);
TensorInfo tensorInfoOf(const onnxpb::Tensor &t);
/// Host bytes of a tensor as TensorProto raw_data: 4- and 2-bit types packed.
std::string packedRawData(const TensorInfo &info, const void *data);
/// The model with initializers replaced by the current host weights of `ir`;
/// initializers read from external files stay external and their files are
/// updated in place (atomically).
std::string exportModelWithWeights(const Ir &ir);
/// Moves every initializer whose external location is `from` to the new file
/// `to` (which must not exist), written now with the current host weights.
void moveExternalData(const Ir &ir, onnxpb::Model &model, const std::string &from, const std::string &to);
} // namespace popart
