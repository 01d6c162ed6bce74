#include "vkattn/io/ggml_quant.hpp"

#include <cstring>
#include <limits>
#include <optional>

#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn {

bool ggmlCanDequantize(GgmlType type) noexcept {
  return ggmlStorageFormat(type).has_value();
}

bool ggmlCanQuantize(GgmlType type) noexcept {
  return ggmlStorageFormat(type).has_value();
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
                      ggmlStorageFormatTypeNames() + " are)");
  if (ggmlStorageBytes(type, elements) != bytes.size())
    throw InvalidArgument("bytes", std::to_string(bytes.size()) + " bytes do not hold " + std::to_string(elements) +
                                       " " + ggmlTypeName(type) + " elements");
  if (elements == 0) return {};
  return decodeValues(*ggmlStorageFormat(type), std::as_bytes(bytes), static_cast<int64_t>(elements));
}

std::vector<uint8_t> quantizeGgml(GgmlType type, std::span<const float> values) {
  const auto format = ggmlStorageFormat(type);
  if (!format)
    throw Unsupported("quantizing to ggml type " + ggmlTypeName(type) + " is not supported (" +
                      ggmlStorageFormatTypeNames() + " are)");
  ggmlStorageBytes(type, values.size());  // whole blocks, or InvalidArgument
  if (values.empty()) return {};
  const std::vector<std::byte> encoded = encodeValues(*format, values);
  std::vector<uint8_t> out(encoded.size());
  std::memcpy(out.data(), encoded.data(), encoded.size());
  return out;
}

}  // namespace vkattn
