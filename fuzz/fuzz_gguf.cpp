// libFuzzer target: the GGUF reader on an arbitrary file image, then every tensor it accepted
// dequantized, every metadata value read as an integer, and the file written back by GgufWriter
// and read again, which must give the same bytes once more. Only the parse may throw
// (vkattn::InvalidArgument); after it, only dequantizing a type without a decoder (Unsupported).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include "vkattn/core/error.hpp"
#include "vkattn/io/gguf.hpp"
#include "vkattn/io/gguf_writer.hpp"

namespace {

std::vector<uint8_t> rewrite(const vkattn::GgufFile& file) {
  vkattn::GgufWriter writer(file.alignment());
  for (const auto& [key, value] : file.metadata().entries())
    if (key != "general.alignment") writer.setMetadata(key, value);
  for (const vkattn::GgufTensorInfo& t : file.tensors()) {
    const auto bytes = file.tensorBytes(t.name);
    writer.addRawTensor(t.name, t.rowMajorShape(), t.type, std::vector<uint8_t>(bytes.begin(), bytes.end()));
  }
  return writer.bytes();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::optional<vkattn::GgufFile> parsed;
  try {
    parsed.emplace(vkattn::GgufFile::fromBytes(std::vector<uint8_t>(data, data + size)));
  } catch (const vkattn::InvalidArgument&) {
    return 0;
  }
  // From here on the file was accepted: any exception but Unsupported is a finding.
  const vkattn::GgufFile& file = *parsed;
  for (const auto& entry : file.metadata().entries()) {
    try {
      (void)file.metadata().getInteger(entry.first);
    } catch (const vkattn::InvalidArgument&) {
    }
  }
  for (const vkattn::GgufTensorInfo& t : file.tensors()) {
    if (file.tensorBytes(t.name).size() != t.bytes) std::abort();
    try {
      if (file.dequantize(t.name).size() != t.elements) std::abort();
    } catch (const vkattn::Unsupported&) {
    }
  }
  // Whatever the reader accepts, the writer writes, and that reads back to the same bytes.
  const std::vector<uint8_t> once = rewrite(file);
  if (rewrite(vkattn::GgufFile::fromBytes(once)) != once) std::abort();
  return 0;
}
