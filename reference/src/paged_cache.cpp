#include "vkattn/reference/paged_cache.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace vkattn::reference {

PagedCache pageCache(const std::vector<float>& dense, std::size_t batch, std::size_t heads, std::size_t len,
                     std::size_t dim, std::size_t blockSize, std::size_t spareBlocks, float spareValue, uint64_t seed) {
  if (blockSize == 0 || len % blockSize != 0)
    throw std::invalid_argument("pageCache: len must be a multiple of blockSize");
  if (dense.size() != batch * heads * len * dim) throw std::invalid_argument("pageCache: dense has the wrong size");
  const std::size_t pages = len / blockSize, used = batch * pages;
  PagedCache out;
  out.numBlocks = used + spareBlocks;
  std::vector<int32_t> order(out.numBlocks);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  out.table.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(used));
  out.cache.assign(out.numBlocks * blockSize * heads * dim, spareValue);
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t j = 0; j < len; ++j) {
        const auto block = static_cast<std::size_t>(out.table[b * pages + j / blockSize]);
        const auto from = dense.begin() + static_cast<std::ptrdiff_t>(((b * heads + h) * len + j) * dim);
        std::copy_n(
            from, dim,
            out.cache.begin() + static_cast<std::ptrdiff_t>(((block * blockSize + j % blockSize) * heads + h) * dim));
      }
  return out;
}

}  // namespace vkattn::reference
