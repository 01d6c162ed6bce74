#include "test_context.hpp"

#include <string>

namespace vkattn::test {

void VkattnTest::SetUp() {
  m_messagesBefore = ctx().instance().validationMessageCount();
}

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
