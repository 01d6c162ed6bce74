// The sampling flags `vkattn generate` and `vkattn bench generate` share.
#pragma once

#include <cstdint>

#include "arguments.hpp"
#include "vkattn/models/token_sampler.hpp"

namespace vkattn::cli {

// --temperature (default 0: greedy), --top-k (0: every token), --top-p (1), --seed
// (seedWhenAbsent where not given); InvalidArgument names the flag of a value out of range.
SamplerOptions samplerFlags(const Arguments& a, uint64_t seedWhenAbsent);

}  // namespace vkattn::cli
