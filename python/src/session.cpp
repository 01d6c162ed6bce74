#include "session.hpp"

#include <memory>

namespace vkattn::python {
namespace {

std::unique_ptr<Context>& slot() {
  static std::unique_ptr<Context> context;
  return context;
}

}  // namespace

Context& session() {
  auto& ctx = slot();
  if (!ctx) ctx = std::make_unique<Context>();
  return *ctx;
}

void useDevice(const std::optional<std::string>& device) {
  auto& ctx = slot();
  ctx.reset();  // one device at a time: release the old one first
  ctx = std::make_unique<Context>(ContextOptions{.device = device});
}

}  // namespace vkattn::python
