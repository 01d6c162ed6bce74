#include "vkattn/core/storage_formats.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "k_quant_blocks.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/half.hpp"

namespace vkattn {
namespace {

constexpr int64_t kBlock = 32;

void putScale(std::byte* block, float d) {
  const uint16_t bits = floatToHalf(d);
  std::memcpy(block, &bits, 2);
}

float getScale(const std::byte* block) {
  uint16_t bits;
  std::memcpy(&bits, block, 2);
  return halfToFloat(bits);
}

// Throws unless every value of the block is finite and its scale d fits an f16.
void requireEncodable(const float* x, float d, DType dtype) {
  for (int64_t i = 0; i < kBlock; ++i)
    if (!std::isfinite(x[i]))
      throw InvalidArgument("values", std::string(toString(dtype)) + " cannot hold NaN or infinity");
  if (std::isinf(halfToFloat(floatToHalf(d))))
    throw InvalidArgument("values", std::string("a block's largest magnitude exceeds what ") + toString(dtype) +
                                        "'s f16 scale can hold (" +
                                        (dtype == DType::Q8_0 ? "65504 * 127" : "65504 * 8") + ")");
}

void encodeQ8_0(const float* x, std::byte* block) {
  float amax = 0.0f;
  for (int64_t i = 0; i < kBlock; ++i) amax = std::max(amax, std::fabs(x[i]));
  const float d = amax / 127.0f;
  requireEncodable(x, d, DType::Q8_0);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  putScale(block, d);
  for (int64_t i = 0; i < kBlock; ++i)
    block[2 + i] = static_cast<std::byte>(static_cast<int8_t>(std::lround(x[i] * id)));
}

void encodeQ4_0(const float* x, std::byte* block) {
  float amax = 0.0f, m = 0.0f;
  for (int64_t i = 0; i < kBlock; ++i)
    if (std::fabs(x[i]) > amax) {
      amax = std::fabs(x[i]);
      m = x[i];
    }
  const float d = m / -8.0f;
  requireEncodable(x, d, DType::Q4_0);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  putScale(block, d);
  auto nibble = [&](float v) { return static_cast<uint8_t>(std::min(15, static_cast<int>(v * id + 8.5f))); };
  for (int64_t i = 0; i < kBlock / 2; ++i)
    block[2 + i] = static_cast<std::byte>(nibble(x[i]) | (nibble(x[i + kBlock / 2]) << 4));
}

using KBlockEncoder = void (*)(const float*, uint8_t*);
using KBlockDecoder = void (*)(const uint8_t*, float*);

KBlockEncoder kBlockEncoder(DType dtype) {
  return dtype == DType::Q4_K   ? detail::quantizeQ4_KBlock
         : dtype == DType::Q5_K ? detail::quantizeQ5_KBlock
                                : detail::quantizeQ6_KBlock;
}

KBlockDecoder kBlockDecoder(DType dtype) {
  return dtype == DType::Q4_K   ? detail::dequantizeQ4_KBlock
         : dtype == DType::Q5_K ? detail::dequantizeQ5_KBlock
                                : detail::dequantizeQ6_KBlock;
}

}  // namespace

static_assert(dtypeLayout(DType::Q8_0).blockElements == kBlock && dtypeLayout(DType::Q4_0).blockElements == kBlock &&
                  dtypeLayout(DType::Q4_K).blockElements == detail::kQK_K,
              "the codecs' blocks are the table's");

int64_t blockElements(DType dtype) noexcept {
  return dtypeLayout(dtype).blockElements;
}

std::size_t blockBytes(DType dtype) noexcept {
  return dtypeLayout(dtype).blockBytes;
}

bool isBlockFormat(DType dtype) noexcept {
  return blockElements(dtype) > 1;
}

bool isKvStorageFormat(DType dtype) noexcept {
  return dtype == DType::BF16 || dtype == DType::Q8_0 || dtype == DType::Q4_0;
}

bool isWeightFormat(DType dtype) noexcept {
  return isBlockFormat(dtype);
}

std::size_t storageBytes(DType dtype, int64_t elements) noexcept {
  const int64_t per = blockElements(dtype);
  return static_cast<std::size_t>((elements + per - 1) / per) * blockBytes(dtype);
}

uint16_t floatToBf16(float value) noexcept {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);  // NaN stays NaN
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float bf16ToFloat(uint16_t bits) noexcept {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

std::vector<std::byte> encodeValues(DType dtype, std::span<const float> values) {
  const auto n = static_cast<int64_t>(values.size());
  if (n % blockElements(dtype) != 0)
    throw InvalidArgument("values", std::to_string(n) + " values are not whole blocks of " +
                                        std::to_string(blockElements(dtype)) + " for " + toString(dtype));
  std::vector<std::byte> out(storageBytes(dtype, n));
  switch (dtype) {
    case DType::F32:
      std::memcpy(out.data(), values.data(), out.size());
      break;
    case DType::F16:
    case DType::BF16:
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t h = dtype == DType::F16 ? floatToHalf(values[i]) : floatToBf16(values[i]);
        std::memcpy(out.data() + 2 * i, &h, 2);
      }
      break;
    case DType::Q8_0:
    case DType::Q4_0:
      for (int64_t b = 0; b < n / kBlock; ++b) {
        std::byte* block = out.data() + static_cast<std::size_t>(b) * blockBytes(dtype);
        if (dtype == DType::Q8_0)
          encodeQ8_0(values.data() + b * kBlock, block);
        else
          encodeQ4_0(values.data() + b * kBlock, block);
      }
      break;
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K:
      for (int64_t b = 0; b < n / detail::kQK_K; ++b)
        kBlockEncoder(dtype)(values.data() + b * detail::kQK_K,
                             reinterpret_cast<uint8_t*>(out.data()) + static_cast<std::size_t>(b) * blockBytes(dtype));
      break;
    case DType::I32:
      throw InvalidArgument("dtype", "float values cannot be encoded as i32");
  }
  return out;
}

std::vector<float> decodeValues(DType dtype, std::span<const std::byte> bytes, int64_t count) {
  if (count < 0 || bytes.size() != storageBytes(dtype, count) || count % blockElements(dtype) != 0)
    throw InvalidArgument("bytes", std::to_string(bytes.size()) + " bytes do not hold " + std::to_string(count) + " " +
                                       toString(dtype) + " elements");
  std::vector<float> out(static_cast<std::size_t>(count));
  switch (dtype) {
    case DType::F32:
      std::memcpy(out.data(), bytes.data(), bytes.size());
      break;
    case DType::F16:
    case DType::BF16:
      for (int64_t i = 0; i < count; ++i) {
        uint16_t h;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        out[i] = dtype == DType::F16 ? halfToFloat(h) : bf16ToFloat(h);
      }
      break;
    case DType::Q8_0:
    case DType::Q4_0:
      for (int64_t b = 0; b < count / kBlock; ++b) {
        const std::byte* block = bytes.data() + static_cast<std::size_t>(b) * blockBytes(dtype);
        const float d = getScale(block);
        float* x = out.data() + b * kBlock;
        for (int64_t i = 0; i < kBlock; ++i) {
          if (dtype == DType::Q8_0) {
            x[i] = d * static_cast<float>(static_cast<int8_t>(block[2 + i]));
          } else {
            const auto byte = static_cast<uint8_t>(block[2 + i % (kBlock / 2)]);
            x[i] = d * static_cast<float>((i < kBlock / 2 ? byte & 15 : byte >> 4) - 8);
          }
        }
      }
      break;
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K:
      for (int64_t b = 0; b < count / detail::kQK_K; ++b)
        kBlockDecoder(dtype)(
            reinterpret_cast<const uint8_t*>(bytes.data()) + static_cast<std::size_t>(b) * blockBytes(dtype),
            out.data() + b * detail::kQK_K);
      break;
    case DType::I32:
      throw InvalidArgument("dtype", "i32 elements are not floats");
  }
  return out;
}

}  // namespace vkattn
