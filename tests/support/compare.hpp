// A gtest assertion over ErrorStats that reports the worst element (index, got, expected) when a
// tolerance is exceeded.
#pragma once

#include <gtest/gtest.h>

#include "vkattn/reference/error_stats.hpp"

namespace vkattn::test {

// Fails the current test if any element is outside atol + rtol * |expected| (NaN never passes,
// except where both are NaN).
::testing::AssertionResult allClose(const std::vector<float>& got, const std::vector<double>& expected, double atol,
                                    double rtol);

// Succeeds where some element is outside that tolerance: a check that a test tells two answers
// apart. Unlike allClose it adds nothing to the conformance report's worst error, whose ratio
// would otherwise be the deliberate difference.
::testing::AssertionResult differs(const std::vector<float>& got, const std::vector<double>& expected, double atol,
                                   double rtol);

}  // namespace vkattn::test
