// Device choice as one testable function: discrete > integrated > virtual > CPU, with an
// override that names a device by index or by a case-insensitive substring of its name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vkattn/core/device_info.hpp"

namespace vkattn {

// Returns the position in `devices` of the device to use. `override` (from VKATTN_DEVICE or a
// --device flag) is a decimal index or a name substring. Throws InvalidArgument when the override
// matches nothing and Unsupported when `devices` is empty.
std::size_t chooseDevice(const std::vector<DeviceInfo>& devices, const std::optional<std::string>& override);

// The VKATTN_DEVICE environment variable, if set and non-empty.
std::optional<std::string> deviceOverrideFromEnvironment();

}  // namespace vkattn
