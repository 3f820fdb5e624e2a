// Executable files of the CPU backend. There is no device binary to cache:
// compiling is importing and preparing the IR, which the constructor does.
// A file holds a fingerprint of the prepared IR (so a file cannot be loaded
// into a session compiled from another model or options) and, optionally,
// the Variables (weights and optimizer state). Layout, little-endian:
//   "POPART-CPU-EXE\n" | u64 fingerprint | u64 count |
//   count x (u32 id length, id, i32 ONNX data type, u64 bytes, bytes) | u64 checksum
// The checksum (FNV-1a, 64 bits) covers everything before it, so flipped bits,
// truncation and trailing garbage are all detected. Files are written
// atomically; loads parse and validate the whole file before changing anything.
#include "cpu/executor.hpp"
#include "onnx/atomic_file.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/session.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/tensor.hpp"
#include "popart/variablesettings.hpp"
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

namespace popart {
namespace {

const char kMagic[] = "POPART-CPU-EXE\n";

uint64_t fingerprint(const Ir &ir) { return std::hash<std::string>{}(ir.serialise()); }

uint64_t checksum(const char *data, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 1099511628211ull;
  return h;
}

template <class T> void put(std::string &o, T v) { o.append(reinterpret_cast<const char *>(&v), sizeof(v)); }

// Reads fields from an in-memory file; every length is checked against the bytes left.
class Reader {
public:
  Reader(const std::string &bytes, size_t end, const std::string &file) : bytes_(bytes), end_(end), file_(file) {}
  template <class T> T get() {
    T v{};
    std::memcpy(&v, take(sizeof(T)), sizeof(T));
    return v;
  }
  std::string getBytes(uint64_t n) {
    const char *p = take(n);
    return std::string(p, static_cast<size_t>(n));
  }
  bool atEnd() const { return pos_ == end_; }

private:
  const char *take(uint64_t n) {
    if (n > end_ - pos_) throw error("executable '{}' is truncated or corrupt (a length field exceeds the file)", file_);
    const char *p = bytes_.data() + pos_;
    pos_ += static_cast<size_t>(n);
    return p;
  }
  const std::string &bytes_;
  size_t end_, pos_ = 0;
  const std::string &file_;
};

std::string resolvePath(const std::string &path, const std::string &name) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return (std::filesystem::path(path) / (name + ".popart_cpu")).string();
  return path;
}

void writeFile(const Ir &ir, const std::string &file, bool withVariables) {
  std::string o(kMagic, sizeof(kMagic) - 1);
  put<uint64_t>(o, fingerprint(ir));
  std::vector<const Tensor *> vars;
  if (withVariables)
    for (const Tensor *t : ir.getMainGraph().getTensors().getOfType(TensorType::Variable))
      if (t->hasTensorData()) vars.push_back(t);
  put<uint64_t>(o, vars.size());
  for (const Tensor *t : vars) {
    put<uint32_t>(o, static_cast<uint32_t>(t->id.size()));
    o += t->id;
    put<int32_t>(o, onnxDataType(t->info.dataType()));
    put<uint64_t>(o, t->tensorData().size());
    o.append(t->tensorData().data(), t->tensorData().size());
  }
  put<uint64_t>(o, checksum(o.data(), o.size()));
  writeFileAtomically(file, o, "saveExecutable");
}

std::string readAll(const std::string &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw error("cannot read executable '{}'", file);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw error("error reading executable '{}'", file);
  return ss.str();
}

// A Variable holds one value, or with VariableSettings one per group or per replica.
bool savedSizeFits(const Ir &ir, const std::map<TensorId, VariableSettings> &grouped, const Tensor &t, int64_t size) {
  const int64_t one = t.info.nbytes();
  if (size == one) return true;
  auto vs = grouped.find(t.id);
  if (vs == grouped.end() || one == 0 || size % one != 0) return false;
  const auto replicas = static_cast<unsigned>(ir.getSessionOptions().getGlobalReplicationFactor());
  const int64_t slots = size / one;
  return slots == vs->second.getGroupCount(replicas) || slots == replicas;
}

// Parses and validates the whole file; returns the variables' new contents without touching the IR.
std::vector<std::pair<Tensor *, std::string>> parseFile(Ir &ir, const std::string &file) {
  const std::string bytes = readAll(file);
  const size_t magicLen = sizeof(kMagic) - 1;
  if (bytes.size() < magicLen || bytes.compare(0, magicLen, kMagic) != 0)
    throw error("'{}' is not a popart-cpu executable (saveExecutable / compileAndExport write them)", file);
  if (bytes.size() < magicLen + 3 * sizeof(uint64_t)) throw error("executable '{}' is truncated", file);
  const size_t body = bytes.size() - sizeof(uint64_t);
  uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + body, sizeof(stored));
  if (stored != checksum(bytes.data(), body))
    throw error("executable '{}' is corrupt: its checksum does not match (truncated, modified or with trailing "
                "bytes)", file);
  Reader r(bytes, body, file);
  r.getBytes(magicLen);
  if (r.get<uint64_t>() != fingerprint(ir))
    throw error("executable '{}' was compiled from a different model or options than this session", file);
  const auto count = r.get<uint64_t>();
  Graph &g = ir.getMainGraph();
  const auto grouped = nonDefaultVariableSettings(ir);
  std::vector<std::pair<Tensor *, std::string>> staged;
  for (uint64_t k = 0; k < count; ++k) {
    std::string id = r.getBytes(r.get<uint32_t>());
    const auto onnxType = r.get<int32_t>();
    std::string data = r.getBytes(r.get<uint64_t>());
    if (!g.getTensors().contains(id) || g.getTensor(id)->tensorType() != TensorType::Variable)
      throw error("executable '{}' has variable '{}', which this session does not have", file, id);
    Tensor *t = g.getTensor(id);
    if (onnxType != onnxDataType(t->info.dataType()))
      throw error("executable '{}': variable '{}' has ONNX type {}, the session's is {}", file, id, onnxType,
                  t->info.data_type());
    if (!savedSizeFits(ir, grouped, *t, static_cast<int64_t>(data.size())))
      throw error("executable '{}': variable '{}' has {} bytes, expected {}", file, id, data.size(), t->info.nbytes());
    staged.emplace_back(t, std::move(data));
  }
  if (!r.atEnd()) throw error("executable '{}' has unexpected bytes after its last variable", file);
  return staged;
}

void readFile(Ir &ir, const std::string &file) {
  for (auto &[t, data] : parseFile(ir, file)) t->setTensorData(data.data(), static_cast<int64_t>(data.size()));
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
