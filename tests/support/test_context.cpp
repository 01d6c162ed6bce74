#include "test_context.hpp"

#include <cstdlib>
#include <iostream>

namespace vkattn::test {

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

void VkattnTest::SetUp() { m_messagesBefore = ctx().instance().validationMessageCount(); }

void VkattnTest::TearDown() {
  const auto& instance = ctx().instance();
  const std::size_t after = instance.validationMessageCount();
  if (after != m_messagesBefore) {
    auto messages = instance.validationMessages();
    std::string text;
    for (std::size_t i = m_messagesBefore; i < messages.size() && i < m_messagesBefore + 5; ++i)
      text += "\n  " + messages[i];
    ADD_FAILURE() << (after - m_messagesBefore) << " validation message(s):" << text;
  }
}

}  // namespace vkattn::test
