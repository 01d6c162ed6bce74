// libFuzzer target: the safetensors header checks on arbitrary header text. The input becomes
// the JSON header of a file with a correct length prefix and 64 data bytes, so the fuzzer spends
// its time in the JSON parsing and the checks of dtype, shape and data_offsets rather than on
// the prefix. Only vkattn::InvalidArgument may come out.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vkattn/core/error.hpp"
#include "vkattn/io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::vector<uint8_t> file(8 + size + 64, 0);
  for (int i = 0; i < 8; ++i) file[i] = static_cast<uint8_t>(static_cast<uint64_t>(size) >> (8 * i));
  std::copy(data, data + size, file.begin() + 8);
  try {
    const vkattn::SafetensorsFile st = vkattn::SafetensorsFile::fromBytes(std::move(file));
    for (const vkattn::SafetensorsEntry& e : st.entries()) {
      (void)e.numel();
      (void)st.readBytes(e.name);
    }
  } catch (const vkattn::InvalidArgument&) {
  }
  return 0;
}
