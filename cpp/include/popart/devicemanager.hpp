// Devices. Every device runs on the host CPU: "Cpu" is one worker, "IpuModel"
// and "Ipu" devices expose N virtual IPUs so IPU scripts run unchanged
// (virtual graphs and pipeline stages map onto them); "OfflineIpu" compiles
// but refuses to run.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace popart {

enum class DeviceType { IpuModel = 0, Cpu, Ipu, OfflineIpu, Sim };
enum class DeviceConnectionType { Always = 0, OnDemand, Never };
enum class SyncPattern { Full = 0, SinglePipeline, ReplicaAndLadder };
enum class DeviceSelectionCriterion { First = 0, Random };

std::string toString(DeviceType t);

class DeviceInfo {
public:
  DeviceInfo(DeviceType type, int id, int numIpus, int tilesPerIpu,
             DeviceConnectionType connection, std::map<std::string, std::string> options);
  virtual ~DeviceInfo();

  /// Marks the device as in use by this process; true when it is attached afterwards
  /// (attaching twice is harmless), false for an offline device, which never attaches.
  bool attach();
  void detach();
  bool isAttached() const { return attached_; }
  bool tryAttachUntilTimeout() { return attach(); }

  DeviceType getType() const { return type_; }
  DeviceConnectionType getConnectionType() const { return connection_; }
  int getId() const { return id_; }
  /// "cpu" for the Cpu device, else the "ipuVersion" option (default "ipu2").
  std::string getVersion() const;
  int getNumIpus() const { return numIpus_; }
  int getTilesPerIPU() const { return tilesPerIpu_; }
  int getNumWorkerContexts() const { return 6; }
  /// Worker threads used by kernels (OMP_NUM_THREADS or the core count).
  int getNumThreads() const;
  std::vector<unsigned> getDriverIds() const { return {static_cast<unsigned>(id_)}; }
  std::vector<int> getChildIds() const { return {}; }
  const std::map<std::string, std::string> &getOptions() const { return options_; }
  bool canCompileOffline() const { return true; }
  bool isHwCompatible() const { return type_ != DeviceType::OfflineIpu; }
  void setOnDemandAttachTimeout(unsigned seconds) { attachTimeout_ = seconds; }
  unsigned getOnDemandAttachTimeout() const { return attachTimeout_; }
  /// PopART's format: "Device Type:Cpu Connection Type:Always Id:0 Version:cpu NumIPUs:1 ...".
  std::string toString() const;

private:
  DeviceType type_;
  int id_, numIpus_, tilesPerIpu_;
  DeviceConnectionType connection_;
  std::map<std::string, std::string> options_;
  bool attached_ = false;
  unsigned attachTimeout_ = 0;
};

class DeviceManager {
public:
  static DeviceManager &createDeviceManager();

  std::shared_ptr<DeviceInfo> createCpuDevice();
  std::shared_ptr<DeviceInfo> createIpuModelDevice(std::map<std::string, std::string> &options);
  std::shared_ptr<DeviceInfo> createSimDevice(std::map<std::string, std::string> &options);
  std::shared_ptr<DeviceInfo> createOfflineIPUDevice(std::map<std::string, std::string> &options);
  std::shared_ptr<DeviceInfo> createOfflineIpuFromDeviceInfo(const DeviceInfo &info);
  /// An offline device for `system` (an IPU version such as "ipu2") with numIpus IPUs.
  std::shared_ptr<DeviceInfo> createOfflineIpuFromSystemString(const std::string &system, int numIpus);
  /// A CPU-backed "IPU" device with numIpus virtual IPUs; throws if numIpus is
  /// not a power of two or exceeds the available count (64). Device ids follow
  /// the IPU numbering of `gc-info -l`: 0..63 single IPUs, 64..95 pairs, 96..111
  /// quads, ... 126 for all 64; an acquired device is the first of its size.
  std::shared_ptr<DeviceInfo> acquireAvailableDevice(int numIpus = 1, int tilesPerIpu = 0,
                                                     SyncPattern pattern = SyncPattern::Full,
                                                     DeviceConnectionType connection = DeviceConnectionType::Always,
                                                     DeviceSelectionCriterion criterion = DeviceSelectionCriterion::First);
  std::shared_ptr<DeviceInfo> acquireDeviceById(int id, SyncPattern pattern = SyncPattern::Full,
                                                DeviceConnectionType connection = DeviceConnectionType::Always);
  std::shared_ptr<DeviceInfo> tryAcquireAvailableDevice(int numIpus = 1, int tilesPerIpu = 0,
                                                        SyncPattern pattern = SyncPattern::Full,
                                                        DeviceConnectionType connection = DeviceConnectionType::Always,
                                                        DeviceSelectionCriterion criterion = DeviceSelectionCriterion::First);
  std::shared_ptr<DeviceInfo> tryAcquireDeviceById(int id, SyncPattern pattern = SyncPattern::Full,
                                                   DeviceConnectionType connection = DeviceConnectionType::Always);
  std::vector<std::shared_ptr<DeviceInfo>> enumerateDevices(SyncPattern pattern = SyncPattern::Full,
                                                            int numIpus = 1, DeviceType type = DeviceType::Ipu,
                                                            DeviceConnectionType connection = DeviceConnectionType::Always,
                                                            int tilesPerIpu = 0);
  std::shared_ptr<DeviceInfo> getDevice(SyncPattern pattern = SyncPattern::Full, unsigned deviceManagerId = 0,
                                        DeviceConnectionType connection = DeviceConnectionType::Always);
  void setOnDemandAttachTimeout(unsigned seconds) { attachTimeout_ = seconds; }

  /// Id of the first device made of numIpus IPUs (0, 64, 96, ...).
  static int firstDeviceId(int numIpus);

  static constexpr int kMaxIpus = 64;
  static constexpr int kTilesPerIpu = 1472;

private:
  int nextId_ = 0;
  unsigned attachTimeout_ = 0;
};

} // namespace popart
