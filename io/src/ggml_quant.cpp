#include "vkattn/io/ggml_quant.hpp"

#include <cstring>
#include <limits>
#include <optional>

#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn {
namespace {

// The types whose layout vkattn's storage formats share (one encoder and decoder for each, in
// core/storage_formats).
std::optional<DType> storageFormatOf(GgmlType type) {
  switch (type) {
    case GgmlType::F32:
      return DType::F32;
    case GgmlType::F16:
      return DType::F16;
    case GgmlType::BF16:
      return DType::BF16;
    case GgmlType::Q8_0:
      return DType::Q8_0;
    case GgmlType::Q4_0:
      return DType::Q4_0;
    case GgmlType::Q4_K:
      return DType::Q4_K;
    case GgmlType::Q5_K:
      return DType::Q5_K;
    case GgmlType::Q6_K:
      return DType::Q6_K;
    default:
      return std::nullopt;
  }
}

}  // namespace

bool ggmlCanDequantize(GgmlType type) noexcept {
  return storageFormatOf(type).has_value();
}

bool ggmlCanQuantize(GgmlType type) noexcept {
  return storageFormatOf(type).has_value();
}

std::string ggmlDequantizableTypes() {
  return "F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K";
}

uint64_t ggmlStorageBytes(GgmlType type, uint64_t elements) {
  const GgmlTypeTraits traits = ggmlTypeTraits(type);
  if (elements % traits.blockElements != 0)
    throw InvalidArgument("elements", std::to_string(elements) + " elements are not whole " + traits.name +
                                          " blocks of " + std::to_string(traits.blockElements));
  const uint64_t blocks = elements / traits.blockElements;
  if (blocks > std::numeric_limits<uint64_t>::max() / traits.blockBytes)
    throw InvalidArgument("elements",
                          std::to_string(elements) + " " + traits.name + " elements take more than 2^64 bytes");
  return blocks * traits.blockBytes;
}

std::vector<float> dequantizeGgml(GgmlType type, std::span<const uint8_t> bytes, uint64_t elements) {
  if (!ggmlCanDequantize(type))
    throw Unsupported("dequantizing ggml type " + ggmlTypeName(type) + " is not supported (" +
                      ggmlDequantizableTypes() + " are)");
  if (ggmlStorageBytes(type, elements) != bytes.size())
    throw InvalidArgument("bytes", std::to_string(bytes.size()) + " bytes do not hold " + std::to_string(elements) +
                                       " " + ggmlTypeName(type) + " elements");
  if (elements == 0) return {};
  return decodeValues(*storageFormatOf(type), std::as_bytes(bytes), static_cast<int64_t>(elements));
}

std::vector<uint8_t> quantizeGgml(GgmlType type, std::span<const float> values) {
  const auto format = storageFormatOf(type);
  if (!format)
    throw Unsupported("quantizing to ggml type " + ggmlTypeName(type) +
                      " is not supported (" + ggmlDequantizableTypes() + " are)");
  ggmlStorageBytes(type, values.size());  // whole blocks, or InvalidArgument
  if (values.empty()) return {};
  const std::vector<std::byte> encoded = encodeValues(*format, values);
  std::vector<uint8_t> out(encoded.size());
  std::memcpy(out.data(), encoded.data(), encoded.size());
  return out;
}

}  // namespace vkattn
