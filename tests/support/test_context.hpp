// One Context per test program, with Khronos validation on (unless VKATTN_VALIDATION=0), and a
// fixture that fails any test during which the validation layer said anything.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "vkattn/core/context.hpp"

namespace vkattn::test {

// The program-wide context, created on first use.
Context& sharedContext();

class VkattnTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  Context& ctx() { return sharedContext(); }

 private:
  std::size_t m_messagesBefore = 0;
};

}  // namespace vkattn::test
