#include "sampler_flags.hpp"

#include <limits>

#include "vkattn/core/error.hpp"

namespace vkattn::cli {

SamplerOptions samplerFlags(const Arguments& a, uint64_t seedWhenAbsent) {
  SamplerOptions o;
  o.temperature = static_cast<float>(a.number("--temperature", 0.0));
  if (!(o.temperature >= 0)) throw InvalidArgument("--temperature", "must be >= 0");
  o.topK = a.integer("--top-k", 0, 0, std::numeric_limits<int32_t>::max());
  o.topP = static_cast<float>(a.number("--top-p", 1.0));
  if (!(o.topP > 0 && o.topP <= 1)) throw InvalidArgument("--top-p", "must be in (0, 1]");
  o.seed = a.get("--seed") ? static_cast<uint64_t>(a.integer("--seed", 0, 0, std::numeric_limits<int64_t>::max()))
                           : seedWhenAbsent;
  return o;
}

}  // namespace vkattn::cli
