// The module's one Context: created on first use on the default device, replaced by use_device().
#pragma once

#include <optional>
#include <string>

#include "vkattn/context.hpp"

namespace vkattn::python {

Context& session();
void useDevice(const std::optional<std::string>& device);

}  // namespace vkattn::python
