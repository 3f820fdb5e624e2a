// External tensor data (TensorProto.data_location = EXTERNAL): the bytes are
// read from a file next to the model, whose path may not leave the model folder
// (for a model given as bytes: relative to the working directory, as PopART).
// Main-graph initializers remember their file, so trained weights go back there.
#include "onnx/atomic_file.hpp"
#include "onnx/model.hpp"
#include "onnx/wire.hpp"
#include "popart/error.hpp"
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

namespace popart::onnxpb {
namespace {

int64_t externalInt(const StringStringEntry &e, const Tensor &t) {
  int64_t v = -1;
  auto end = e.value.data() + e.value.size();
  auto [ptr, ec] = std::from_chars(e.value.data(), end, v);
  if (ec != std::errc() || ptr != end || v < 0)
    throw error("tensor '{}' has external data {} '{}', expected a non-negative integer", t.name,
                e.key, e.value);
  return v;
}

// Where external data is looked up: a model file's folder (confined: the data
// may not leave it) or, for a model given as bytes, the working directory.
struct Origin {
  std::string baseDir;
  bool confined;
};

std::filesystem::path externalPath(const Tensor &t, const std::string &location, const Origin &o) {
  std::filesystem::path loc(location);
  if (location.empty())
    throw error("tensor '{}' is stored externally but has no 'location'", t.name);
  std::error_code ec;
  if (!o.confined) {
    auto real = std::filesystem::absolute(loc, ec);
    if (ec) throw error("cannot read external data file '{}' of tensor '{}'", location, t.name);
    return real;
  }
  bool escapes = std::any_of(loc.begin(), loc.end(), [](auto &part) { return part.string() == ".."; });
  if (escapes)
    throw error("tensor '{}' has external data location '{}' outside the model folder '{}'",
                t.name, location, o.baseDir);
  // Symlinks are resolved before the containment check, so a link inside the
  // folder cannot point elsewhere; an absolute location must name a file inside it.
  auto root = std::filesystem::canonical(o.baseDir.empty() ? "." : o.baseDir, ec);
  auto real = std::filesystem::canonical(loc.is_absolute() ? loc : std::filesystem::path(o.baseDir) / loc, ec);
  if (ec) throw error("cannot read external data file '{}' of tensor '{}'", location, t.name);
  auto [rootEnd, realIt] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
  if (rootEnd != root.end())
    throw error("tensor '{}' has external data location '{}', which resolves to '{}' outside the model folder '{}'",
                t.name, location, real.string(), root.string());
  return real;
}

void loadExternal(Tensor &t, const Origin &origin, std::map<std::string, ExternalDataRef> *record) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (auto &e : t.externalData) {
    if (e.key == "location") location = e.value;
    if (e.key == "offset") offset = externalInt(e, t);
    if (e.key == "length") length = externalInt(e, t);
  }
  auto path = externalPath(t, location, origin);
  std::error_code ec;
  bool regular = std::filesystem::is_regular_file(path, ec);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  auto fileSize = static_cast<int64_t>(in ? static_cast<std::streamoff>(in.tellg()) : -1);
  if (!regular || !in || fileSize < 0)
    throw error("cannot read external data file '{}' of tensor '{}'", path.string(), t.name);
  if (length < 0) length = std::max<int64_t>(fileSize - offset, 0);
  if (offset > fileSize || length > fileSize - offset)
    throw error("external data of tensor '{}' (offset {}, length {}) is beyond the end of '{}' "
                "({} bytes)", t.name, offset, length, path.string(), fileSize);
  t.rawData.resize(static_cast<size_t>(length));
  in.seekg(offset);
  if (!in.read(t.rawData.data(), length))
    throw error("failed reading external data of tensor '{}' from '{}'", t.name, path.string());
  t.hasRawData = true;
  t.externalData.clear();
  t.dataLocation = 0;
  if (record) (*record)[t.name] = {location, path.string(), offset, length};
}

std::string locationOf(const Tensor &t) {
  for (const auto &e : t.externalData)
    if (e.key == "location") return e.value;
  return {};
}

void resolveTensor(Tensor &t, const Origin &o, std::map<std::string, ExternalDataRef> *record = nullptr) {
  if (t.dataLocation != 1) return;
  // A model given as bytes may name files that are not there (yet): it can still
  // be inspected or edited; reading the tensor's values reports the file then.
  std::error_code ec;
  if (!o.confined && !locationOf(t).empty() && !std::filesystem::exists(locationOf(t), ec)) return;
  loadExternal(t, o, record);
}

void resolveGraph(Graph &g, const Origin &o, std::map<std::string, ExternalDataRef> *record) {
  for (auto &t : g.initializer) resolveTensor(t, o, record);
  for (auto &n : g.node)
    for (auto &a : n.attribute) {
      if (a.hasT) resolveTensor(a.t, o);
      for (auto &t : a.tensors) resolveTensor(t, o);
      if (a.g) resolveGraph(*a.g, o, nullptr);
      for (auto &sub : a.graphs)
        if (sub) resolveGraph(*sub, o, nullptr);
    }
}

std::string readWholeFile(const std::string &path, const std::string &what) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  auto size = in ? static_cast<std::streamoff>(in.tellg()) : std::streamoff(-1);
  std::string bytes(size > 0 ? static_cast<size_t>(size) : 0, '\0');
  in.seekg(0);
  if (size < 0 || !in.read(bytes.data(), size)) throw error("{}: cannot read external data file '{}'", what, path);
  return bytes;
}

} // namespace

Model loadModelFile(const std::string &path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw error("cannot read ONNX model file '{}': not a readable file", path);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  auto size = in ? static_cast<std::streamoff>(in.tellg()) : std::streamoff(-1);
  std::string bytes;
  if (size >= 0) {
    bytes.resize(static_cast<size_t>(size));
    in.seekg(0);
    in.read(bytes.data(), size);
  }
  if (!in || size < 0) throw error("cannot read ONNX model file '{}'", path);
  auto dir = std::filesystem::path(path).parent_path().string();
  return parseModel(bytes, dir.empty() ? "." : dir);
}

void resolveExternalData(Model &model, const std::string &baseDir) {
  resolveGraph(model.graph, {baseDir, true}, &model.externalInitializers);
}

void resolveExternalDataFromWorkingDir(Model &model) {
  resolveGraph(model.graph, {"", false}, &model.externalInitializers);
}

void writeExternalChunks(const std::vector<ExternalChunk> &chunks, const std::string &what) {
  std::map<std::string, std::vector<const ExternalChunk *>> byFile;
  for (const auto &c : chunks) byFile[c.path].push_back(&c);
  for (const auto &[path, list] : byFile) {
    std::string bytes = readWholeFile(path, what);
    for (const ExternalChunk *c : list) {
      size_t end = static_cast<size_t>(c->offset) + c->bytes.size();
      if (bytes.size() < end) bytes.resize(end, '\0');
      std::copy(c->bytes.begin(), c->bytes.end(), bytes.begin() + c->offset);
    }
    writeFileAtomically(path, bytes, what);
  }
}

void writeExternalData(const std::vector<Tensor *> &tensors, const std::string &filename) {
  // Validate and write everything first; the tensors change only once the file is safely on disk.
  std::string bytes;
  for (const Tensor *t : tensors) {
    if (t->dataLocation == 1)
      throw error("saveInitializersExternally: tensor '{}' already has an external data location", t->name);
    if (!t->hasRawData) throw error("saveInitializersExternally: '{}' has no raw data to save", t->name);
    bytes.append(t->rawData.begin(), t->rawData.end());
  }
  writeFileAtomically(filename, bytes, "saveInitializersExternally");
  int64_t offset = 0;
  for (Tensor *t : tensors) {
    auto length = static_cast<int64_t>(t->rawData.size());
    t->externalData = {{"location", filename}, {"offset", std::to_string(offset)},
                       {"length", std::to_string(length)}};
    t->dataLocation = 1;
    t->hasRawData = false;
    t->rawData.clear();
    offset += length;
  }
}

} // namespace popart::onnxpb
