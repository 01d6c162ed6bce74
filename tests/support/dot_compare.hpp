// A gtest assertion over compareDot (linear_reference.hpp): the matmul tolerance, which grows with
// each output's sum of |products|. Notes the comparison for `vkattn conformance`.
#pragma once

#include <gtest/gtest.h>

#include "vkattn/reference/linear_reference.hpp"

namespace vkattn::test {

::testing::AssertionResult dotClose(const std::vector<float>& got, const reference::MatmulRef& ref, double atol,
                                    double rtol, double dotRtol);

}  // namespace vkattn::test
