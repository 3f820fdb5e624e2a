// Executable files of the CPU backend. There is no device binary to cache:
// compiling is importing and preparing the IR, which the constructor does.
// A file holds a fingerprint of the prepared IR (so a file cannot be loaded
// into a session compiled from another model or options) and, optionally,
// the Variables. Layout, little-endian:
//   "POPART-CPU-EXE\n" | u64 fingerprint | u64 count |
//   count x (u32 id length, id, i32 ONNX data type, u64 bytes, bytes)
#include "cpu/devicex.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/session.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/tensor.hpp"
#include <filesystem>
#include <fstream>
#include <functional>

namespace popart {
namespace {

const char kMagic[] = "POPART-CPU-EXE\n";

uint64_t fingerprint(const Ir &ir) { return std::hash<std::string>{}(ir.serialise()); }

template <class T> void put(std::ostream &o, T v) { o.write(reinterpret_cast<const char *>(&v), sizeof(v)); }

template <class T> T get(std::istream &in, const std::string &file) {
  T v{};
  if (!in.read(reinterpret_cast<char *>(&v), sizeof(v))) throw error("executable '{}' is truncated", file);
  return v;
}

std::string resolvePath(const std::string &path, const std::string &name) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return (std::filesystem::path(path) / (name + ".popart_cpu")).string();
  return path;
}

void writeFile(const Ir &ir, const std::string &file, bool withVariables) {
  std::ofstream o(file, std::ios::binary);
  if (!o) throw error("cannot write executable '{}'", file);
  o.write(kMagic, sizeof(kMagic) - 1);
  put<uint64_t>(o, fingerprint(ir));
  std::vector<const Tensor *> vars;
  if (withVariables)
    for (const Tensor *t : ir.getMainGraph().getTensors().getOfType(TensorType::Variable))
      if (t->hasTensorData()) vars.push_back(t);
  put<uint64_t>(o, vars.size());
  for (const Tensor *t : vars) {
    put<uint32_t>(o, static_cast<uint32_t>(t->id.size()));
    o.write(t->id.data(), static_cast<std::streamsize>(t->id.size()));
    put<int32_t>(o, onnxDataType(t->info.dataType()));
    put<uint64_t>(o, t->tensorData().size());
    o.write(t->tensorData().data(), static_cast<std::streamsize>(t->tensorData().size()));
  }
  if (!o) throw error("failed writing executable '{}'", file);
}

void readFile(Ir &ir, const std::string &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw error("cannot read executable '{}'", file);
  std::string magic(sizeof(kMagic) - 1, '\0');
  if (!in.read(magic.data(), static_cast<std::streamsize>(magic.size())) || magic != kMagic)
    throw error("'{}' is not a popart-cpu executable (saveExecutable / compileAndExport write them)", file);
  if (get<uint64_t>(in, file) != fingerprint(ir))
    throw error("executable '{}' was compiled from a different model or options than this session", file);
  const auto count = get<uint64_t>(in, file);
  Graph &g = ir.getMainGraph();
  for (uint64_t k = 0; k < count; ++k) {
    std::string id(get<uint32_t>(in, file), '\0');
    if (!in.read(id.data(), static_cast<std::streamsize>(id.size()))) throw error("executable '{}' is truncated", file);
    const auto onnxType = get<int32_t>(in, file);
    std::vector<char> bytes(get<uint64_t>(in, file));
    if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())))
      throw error("executable '{}' is truncated", file);
    if (!g.getTensors().contains(id) || g.getTensor(id)->tensorType() != TensorType::Variable)
      throw error("executable '{}' has variable '{}', which this session does not have", file, id);
    Tensor *t = g.getTensor(id);
    if (onnxType != onnxDataType(t->info.dataType()))
      throw error("executable '{}': variable '{}' has ONNX type {}, the session's is {}", file, id, onnxType,
                  t->info.data_type());
    if (static_cast<int64_t>(bytes.size()) != t->info.nbytes())
      throw error("executable '{}': variable '{}' has {} bytes, expected {}", file, id, bytes.size(), t->info.nbytes());
    t->setTensorData(bytes);
  }
}

} // namespace

void Session::saveExecutable(const std::string &path, bool, bool saveVariables) {
  if (saveVariables && isPrepared()) copyDeviceWeightsToHost();
  writeFile(*ir_, resolvePath(path, name_), saveVariables);
}

void Session::saveVariables(const std::string &path) { saveExecutable(path, false, true); }

void Session::loadExecutable(const std::string &filename) {
  readFile(*ir_, filename);
  if (isPrepared()) weightsFromHost();
}

void Session::compileAndExport(const std::string &filename) {
  if (!isPrepared()) prepareDevice(false);
  saveExecutable(filename);
}

void Session::updateEngineCache() {
  const auto &o = ir_->getSessionOptions();
  if (!o.enableEngineCaching) return;
  std::filesystem::create_directories(o.cachePath);
  saveExecutable(o.cachePath, true, false);
}

} // namespace popart
