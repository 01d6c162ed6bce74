// A paged copy of dense K or V for the paged-cache tests and benchmarks: each sequence's keys cut
// into blocks scattered over one cache in flash-attn's layout, the way an inference engine's
// allocator leaves them, plus the block table that finds them again.
#pragma once

#include <cstdint>
#include <vector>

namespace vkattn::reference {

struct PagedCache {
  std::vector<float> cache;    // [numBlocks, blockSize, heads, dim]
  std::vector<int32_t> table;  // [batch, len / blockSize]: the block of each page of keys
  std::size_t numBlocks = 0;
};

// `dense` is [batch, heads, len, dim] with len a multiple of blockSize. The blocks of all sequences
// are shuffled (seeded) over batch * len / blockSize + spareBlocks blocks; the spare ones hold
// `spareValue` and no sequence's keys. The same seed gives the same table for K and V.
PagedCache pageCache(const std::vector<float>& dense, std::size_t batch, std::size_t heads, std::size_t len,
                     std::size_t dim, std::size_t blockSize, std::size_t spareBlocks, float spareValue, uint64_t seed);

}  // namespace vkattn::reference
