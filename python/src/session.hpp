// The module's one Context: created on first use on the default device, replaced by use_device().
// Objects that hold device memory for a Python object (a layer's uploaded weights) are kept here,
// keyed by their owner, so use_device() drops them before the device they were made on.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "vkattn/core/context.hpp"

namespace vkattn::python {

Context& session();
void useDevice(const std::optional<std::string>& device);

struct SessionResource {
  virtual ~SessionResource() = default;
};

// What `owner` stored on the current session, or nullptr (none yet, or the device changed).
SessionResource* sessionResource(const void* owner);
SessionResource& setSessionResource(const void* owner, std::unique_ptr<SessionResource> resource);
void dropSessionResource(const void* owner) noexcept;

}  // namespace vkattn::python
