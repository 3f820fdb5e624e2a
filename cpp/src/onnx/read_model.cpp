// modelProtoOrFilename: PopART's Builder and sessions take either a file name
// or the serialised model itself.
#include "model.hpp"
#include "popart/error.hpp"
#include <algorithm>
#include <filesystem>

namespace popart::onnxpb {
namespace {

bool isPrintable(const std::string &s) {
  return s.size() < 4096 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return c >= 0x20 && c < 0x7f; });
}

} // namespace

Model readModelOrFile(const std::string &modelProtoOrFilename) {
  if (modelProtoOrFilename.empty()) throw error("the ONNX model is empty (neither a file name nor a model)");
  std::error_code ec;
  bool isFile = modelProtoOrFilename.size() < 4096 && modelProtoOrFilename.find('\0') == std::string::npos &&
                std::filesystem::is_regular_file(modelProtoOrFilename, ec);
  if (isFile) return loadModelFile(modelProtoOrFilename);
  Model m;
  try {
    m = parseModel(modelProtoOrFilename);
  } catch (const error &e) {
    // A misspelt file name arrives here as "bytes": say so rather than report wire types.
    if (!isPrintable(modelProtoOrFilename)) throw;
    if (std::filesystem::is_directory(modelProtoOrFilename, ec))
      throw error("model file '{}' is a directory, not an ONNX model file", modelProtoOrFilename);
    throw error("model file '{}' does not exist (and the string is not a serialised ONNX model: {})",
                modelProtoOrFilename, e.what());
  }
  resolveExternalDataFromWorkingDir(m);
  return m;
}

} // namespace popart::onnxpb
