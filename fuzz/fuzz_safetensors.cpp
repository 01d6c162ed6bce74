// libFuzzer target: the safetensors reader on an arbitrary file image, then every tensor it
// accepted read back in each form. Only vkattn::InvalidArgument may come out.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vkattn/core/error.hpp"
#include "vkattn/io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  try {
    const vkattn::SafetensorsFile file = vkattn::SafetensorsFile::fromBytes(std::vector<uint8_t>(data, data + size));
    for (const vkattn::SafetensorsEntry& e : file.entries()) {
      (void)e.numel();
      (void)file.readBytes(e.name);
      try {
        (void)file.readF32(e.name);
      } catch (const vkattn::InvalidArgument&) {
      }
      try {
        (void)file.readI32(e.name);
      } catch (const vkattn::InvalidArgument&) {
      }
    }
  } catch (const vkattn::InvalidArgument&) {
  }
  return 0;
}
