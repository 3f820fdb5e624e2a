#include "popart/devicemanager.hpp"
#include "popart/error.hpp"
#include <omp.h>

namespace popart {

std::string toString(DeviceType t) {
  switch (t) {
  case DeviceType::IpuModel: return "IpuModel";
  case DeviceType::Cpu: return "Cpu";
  case DeviceType::Ipu: return "Ipu";
  case DeviceType::OfflineIpu: return "OfflineIpu";
  default: return "Sim";
  }
}

DeviceInfo::DeviceInfo(DeviceType type, int id, int numIpus, int tilesPerIpu, DeviceConnectionType connection,
                       std::map<std::string, std::string> options)
    : type_(type), id_(id), numIpus_(numIpus), tilesPerIpu_(tilesPerIpu), connection_(connection),
      options_(std::move(options)) {}

DeviceInfo::~DeviceInfo() = default;

bool DeviceInfo::attach() {
  if (type_ == DeviceType::OfflineIpu) return false;
  attached_ = true;
  return true;
}

void DeviceInfo::detach() { attached_ = false; }

int DeviceInfo::getNumThreads() const { return omp_get_max_threads(); }

std::string DeviceInfo::getVersion() const {
  if (type_ == DeviceType::Cpu) return "cpu";
  auto it = options_.find("ipuVersion");
  return it != options_.end() ? it->second : "ipu2";
}

std::string DeviceInfo::toString() const {
  static const char *const connections[] = {"Always", "OnDemand", "Never"};
  std::string ids;
  for (unsigned d : getDriverIds()) ids += (ids.empty() ? "" : ",") + std::to_string(d);
  return "Device Type:" + popart::toString(type_) + " Connection Type:" + connections[static_cast<int>(connection_)] +
         " Id:" + std::to_string(id_) + " Version:" + getVersion() + " NumIPUs:" + std::to_string(numIpus_) +
         " NumTilesPerIPU:" + std::to_string(tilesPerIpu_) + " NumThreads:" + std::to_string(getNumThreads()) +
         " DeviceIds: {" + ids + "}" + (attached_ ? " (attached)" : "");
}

DeviceManager &DeviceManager::createDeviceManager() {
  static DeviceManager instance;
  return instance;
}

namespace {

int intOption(const std::map<std::string, std::string> &o, const std::string &key, int def) {
  auto it = o.find(key);
  if (it == o.end()) return def;
  try {
    return std::stoi(it->second);
  } catch (const std::exception &) {
    throw error("device option '{}' must be an integer, got '{}'", key, it->second);
  }
}

void checkNumIpus(int n) {
  if (n < 1 || n > DeviceManager::kMaxIpus || (n & (n - 1)) != 0)
    throw error("cannot acquire {} IPUs: the number must be a power of two between 1 and {}", n,
                DeviceManager::kMaxIpus);
}

} // namespace

std::shared_ptr<DeviceInfo> DeviceManager::createCpuDevice() {
  return std::make_shared<DeviceInfo>(DeviceType::Cpu, nextId_++, 1, 1, DeviceConnectionType::Always,
                                      std::map<std::string, std::string>{});
}

std::shared_ptr<DeviceInfo> DeviceManager::createIpuModelDevice(std::map<std::string, std::string> &o) {
  int n = intOption(o, "numIPUs", 1);
  if (n < 1) throw error("createIpuModelDevice: numIPUs must be positive, got {}", n);
  return std::make_shared<DeviceInfo>(DeviceType::IpuModel, nextId_++, n, intOption(o, "tilesPerIPU", kTilesPerIpu),
                                      DeviceConnectionType::Always, o);
}

std::shared_ptr<DeviceInfo> DeviceManager::createSimDevice(std::map<std::string, std::string> &o) {
  return std::make_shared<DeviceInfo>(DeviceType::Sim, nextId_++, intOption(o, "numIPUs", 1),
                                      intOption(o, "tilesPerIPU", kTilesPerIpu), DeviceConnectionType::Always, o);
}

std::shared_ptr<DeviceInfo> DeviceManager::createOfflineIPUDevice(std::map<std::string, std::string> &o) {
  return std::make_shared<DeviceInfo>(DeviceType::OfflineIpu, nextId_++, intOption(o, "numIPUs", 1),
                                      intOption(o, "tilesPerIPU", kTilesPerIpu), DeviceConnectionType::Never, o);
}

std::shared_ptr<DeviceInfo> DeviceManager::createOfflineIpuFromDeviceInfo(const DeviceInfo &info) {
  auto o = info.getOptions();
  o.emplace("ipuVersion", info.getVersion());
  return std::make_shared<DeviceInfo>(DeviceType::OfflineIpu, nextId_++, info.getNumIpus(), info.getTilesPerIPU(),
                                      DeviceConnectionType::Never, o);
}

std::shared_ptr<DeviceInfo> DeviceManager::createOfflineIpuFromSystemString(const std::string &system, int numIpus) {
  if (system != "ipu1" && system != "ipu2" && system != "ipu21")
    throw error("unknown IPU system '{}' (expected ipu1, ipu2 or ipu21)", system);
  checkNumIpus(numIpus);
  std::map<std::string, std::string> o{{"ipuVersion", system}, {"numIPUs", std::to_string(numIpus)}};
  return createOfflineIPUDevice(o);
}

int DeviceManager::firstDeviceId(int numIpus) {
  int base = 0;
  for (int n = 1; n < numIpus; n *= 2) base += kMaxIpus / n;
  return base;
}

std::shared_ptr<DeviceInfo> DeviceManager::tryAcquireAvailableDevice(int numIpus, int tilesPerIpu, SyncPattern p,
                                                                     DeviceConnectionType connection,
                                                                     DeviceSelectionCriterion) {
  if (numIpus < 1 || numIpus > kMaxIpus || (numIpus & (numIpus - 1)) != 0) return nullptr;
  if (tilesPerIpu != 0 && tilesPerIpu != kTilesPerIpu) return nullptr;
  return tryAcquireDeviceById(firstDeviceId(numIpus), p, connection);
}

std::shared_ptr<DeviceInfo> DeviceManager::acquireAvailableDevice(int numIpus, int tilesPerIpu, SyncPattern p,
                                                                  DeviceConnectionType c, DeviceSelectionCriterion s) {
  checkNumIpus(numIpus);
  auto d = tryAcquireAvailableDevice(numIpus, tilesPerIpu, p, c, s);
  if (!d) throw error("no device with {} tiles per IPU (devices have {}; pass 0 to match any)", tilesPerIpu, kTilesPerIpu);
  return d;
}

std::shared_ptr<DeviceInfo> DeviceManager::tryAcquireDeviceById(int id, SyncPattern, DeviceConnectionType c) {
  if (id < 0) return nullptr;
  // Ids follow the IPU numbering: 0..63 single IPUs, then 32 pairs, 16 quads, ...
  int numIpus = 1, base = 0, count = kMaxIpus;
  while (id >= base + count) {
    base += count;
    numIpus *= 2;
    if (numIpus > kMaxIpus) return nullptr;
    count = kMaxIpus / numIpus;
  }
  auto d = std::make_shared<DeviceInfo>(DeviceType::Ipu, id, numIpus, kTilesPerIpu, c,
                                        std::map<std::string, std::string>{});
  if (c == DeviceConnectionType::Always) d->attach();
  return d;
}

std::shared_ptr<DeviceInfo> DeviceManager::acquireDeviceById(int id, SyncPattern p, DeviceConnectionType c) {
  auto d = tryAcquireDeviceById(id, p, c);
  if (!d) throw error("no device with id {} (valid ids are 0..{})", id, 2 * kMaxIpus - 2);
  return d;
}

std::vector<std::shared_ptr<DeviceInfo>> DeviceManager::enumerateDevices(SyncPattern p, int numIpus, DeviceType type,
                                                                         DeviceConnectionType c, int tilesPerIpu) {
  std::vector<std::shared_ptr<DeviceInfo>> out;
  if (type != DeviceType::Ipu || numIpus < 1 || numIpus > kMaxIpus || (numIpus & (numIpus - 1))) return out;
  if (tilesPerIpu != 0 && tilesPerIpu != kTilesPerIpu) return out;
  int first = firstDeviceId(numIpus);
  for (int i = 0; i < kMaxIpus / numIpus; ++i)
    out.push_back(std::make_shared<DeviceInfo>(DeviceType::Ipu, first + i, numIpus, kTilesPerIpu,
                                               c,
                                               std::map<std::string, std::string>{}));
  return out;
}

std::shared_ptr<DeviceInfo> DeviceManager::getDevice(SyncPattern p, unsigned id, DeviceConnectionType c) {
  return tryAcquireDeviceById(static_cast<int>(id), p, c);
}

} // namespace popart
