// Choosing the next token from a row of logits: greedy (temperature 0), or sampling from the
// softmax of logits / temperature restricted to the top k tokens and then to the smallest set whose
// probability reaches top p (nucleus). The random stream is a seeded 64-bit Mersenne twister with
// its own conversion to [0, 1), so a seed gives the same tokens on every platform.
#pragma once

#include <cstdint>
#include <random>
#include <span>

namespace vkattn {

struct SamplerOptions {
  float temperature = 0.0f;  // 0: the most likely token (ties: the lowest id)
  int64_t topK = 0;          // 0: every token
  float topP = 1.0f;         // in (0, 1]
  uint64_t seed = 0;
};

// A seed from the operating system's entropy, in [0, 2^63) so that every front end can print it
// and take it back (`--seed`, `seed=`): a run that gives no seed samples differently each time.
uint64_t freshSeed();

// The token drawn from `logits` with the uniform number u in [0, 1) (unused at temperature 0): the
// candidates by descending logit (ties: lower id first), cut to the top k and then to the nucleus,
// and the first whose running weight exceeds u times the kept weight. Throws InvalidArgument
// naming logits (empty, NaN), temperature, topK or topP.
int32_t drawToken(std::span<const float> logits, const SamplerOptions& options, double u);

class TokenSampler {
 public:
  // Throws InvalidArgument naming temperature, topK or topP when out of range.
  explicit TokenSampler(const SamplerOptions& options);
  // drawToken with the stream's next number (none is taken at temperature 0).
  int32_t next(std::span<const float> logits);
  // The stream's next number in [0, 1), for a draw made elsewhere (on the device).
  double nextUniform();
  const SamplerOptions& options() const noexcept { return m_options; }

 private:
  SamplerOptions m_options;
  std::mt19937_64 m_random;
};

}  // namespace vkattn
