// The fixture of the test programs' cases: the program-wide Context (vkattn/conformance's, shared
// with `vkattn conformance`), and any test during which the validation layer said anything fails.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>

#include "vkattn/conformance/shared_context.hpp"

namespace vkattn::test {

using conformance::sharedContext;

class VkattnTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  Context& ctx() { return sharedContext(); }

 private:
  std::size_t m_messagesBefore = 0;
};

}  // namespace vkattn::test
