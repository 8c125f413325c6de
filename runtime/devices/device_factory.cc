#include "runtime/devices/device_factory.h"

#include <algorithm>
#include <mutex>
#include <utility>

namespace graphrt {

namespace {

struct Backends {
  std::mutex mu;
  std::vector<std::pair<std::string, DeviceBackendFactory>> factories;
};

Backends& GetBackends() {
  static Backends* backends = new Backends();  // never destroyed: registrars run at load time
  return *backends;
}

}  // namespace

void RegisterDeviceBackend(const std::string& name, DeviceBackendFactory factory) {
  Backends& b = GetBackends();
  std::lock_guard<std::mutex> lock(b.mu);
  b.factories.emplace_back(name, std::move(factory));
}

std::vector<std::unique_ptr<Device>> CreateDevices(const DeviceOptions& options) {
  std::vector<std::unique_ptr<Device>> devices;
  for (int i = 0; i < std::max(1, options.num_cpus); ++i) {
    devices.push_back(NewCpuDevice(i, options.intra_op_threads));
  }
  std::vector<DeviceBackendFactory> factories;
  {
    Backends& b = GetBackends();
    std::lock_guard<std::mutex> lock(b.mu);
    for (const auto& [name, factory] : b.factories) factories.push_back(factory);
  }
  for (const DeviceBackendFactory& factory : factories) {
    for (auto& device : factory(options)) devices.push_back(std::move(device));
  }
  return devices;
}

}  // namespace graphrt
