#include "vkattn/core/device_selection.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

int rank(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::Discrete:
      return 0;
    case DeviceKind::Integrated:
      return 1;
    case DeviceKind::Virtual:
      return 2;
    case DeviceKind::Cpu:
      return 3;
    default:
      return 4;
  }
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool isIndex(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string deviceList(const std::vector<DeviceInfo>& devices) {
  std::string list;
  for (std::size_t i = 0; i < devices.size(); ++i) list += (i ? ", " : "") + std::to_string(i) + ": " + devices[i].name;
  return list;
}

}  // namespace

std::size_t chooseDevice(const std::vector<DeviceInfo>& devices, const std::optional<std::string>& override) {
  if (devices.empty())
    throw Unsupported("no Vulkan device found (install a driver; Debian's mesa-vulkan-drivers provides lavapipe)");
  if (override && !override->empty()) {
    if (isIndex(*override)) {
      std::size_t index = std::stoul(*override);
      if (index >= devices.size())
        throw InvalidArgument("device", "index " + *override + " is out of range; devices are " + deviceList(devices));
      return index;
    }
    std::string needle = lower(*override);
    for (std::size_t i = 0; i < devices.size(); ++i)
      if (lower(devices[i].name).find(needle) != std::string::npos) return i;
    throw InvalidArgument("device", "no device name contains '" + *override + "'; devices are " + deviceList(devices));
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < devices.size(); ++i)
    if (rank(devices[i].kind) < rank(devices[best].kind)) best = i;
  return best;
}

std::optional<std::string> deviceOverrideFromEnvironment() {
  const char* value = std::getenv("VKATTN_DEVICE");
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

}  // namespace vkattn
