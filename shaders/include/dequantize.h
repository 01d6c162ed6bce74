// dequantize.comp's interface, shared by GLSL and C++: its bindings (set 0) and push-constant block.
#ifndef VKATTN_DEQUANTIZE_H
#define VKATTN_DEQUANTIZE_H

#define DEQUANTIZE_BINDING_WEIGHT 0  // 32-bit words holding the blocks, read
#define DEQUANTIZE_BINDING_OUT 1     // ELEM, written
#define DEQUANTIZE_BINDING_STATUS 2
#define DEQUANTIZE_BINDING_COUNT 3

#ifdef __cplusplus
#include <cstdint>
namespace vkattn::pc {
using uint = std::uint32_t;
#endif

// out[outOffset + r * cols + c] = element c of weight row r, for `rows` rows of `cols` elements;
// row r's first block starts at byte firstByte + r * rowBytes (both even).
struct DequantizeParams {
  uint rows;
  uint cols;
  uint firstByte;
  uint rowBytes;
  uint outOffset;
  uint statusSlot;
};

#ifdef __cplusplus
}  // namespace vkattn::pc
#endif

#endif
