#include "vkattn/conformance/shared_context.hpp"

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

namespace vkattn::conformance {

Context& sharedContext() {
  static std::unique_ptr<Context> context = [] {
    ContextOptions options;
    const char* env = std::getenv("VKATTN_VALIDATION");
    options.validation = !(env && std::string(env) == "0");
    auto ctx = std::make_unique<Context>(options);
    std::cout << "[vkattn] device: " << ctx->info().name << " (" << toString(ctx->info().kind)
              << "), kernel profile: " << toString(ctx->profile())
              << ", validation: " << (ctx->instance().validationEnabled() ? "on" : "off") << "\n";
    return ctx;
  }();
  return *context;
}

}  // namespace vkattn::conformance
