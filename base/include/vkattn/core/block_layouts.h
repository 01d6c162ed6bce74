// Every block storage format's block: how many elements along the last dimension it holds and
// its bytes. The one statement of these facts: the runtime's dtype table (dtype.hpp) and the
// kernels that encode and decode the blocks (shaders/include/weight_formats.glsl, kv_formats.glsl,
// shaders/encode_storage.comp) include this file, which is C++ and GLSL alike (defines only).
// The layouts are ggml's (llama.cpp's GGUF files hold the same bytes).
#ifndef VKATTN_BLOCK_LAYOUTS_H
#define VKATTN_BLOCK_LAYOUTS_H

#define Q8_0_BLOCK_ELEMENTS 32
#define Q8_0_BLOCK_BYTES 34  // f16 scale, 32 signed bytes
#define Q4_0_BLOCK_ELEMENTS 32
#define Q4_0_BLOCK_BYTES 18  // f16 scale, 16 bytes of 4-bit pairs
#define Q4_K_BLOCK_ELEMENTS 256
#define Q4_K_BLOCK_BYTES 144  // f16 scale and minimum, 12 bytes of 6-bit unit scales, 128 of 4-bit pairs
#define Q5_K_BLOCK_ELEMENTS 256
#define Q5_K_BLOCK_BYTES 176  // as Q4_K, and 32 bytes of fifth bits
#define Q6_K_BLOCK_ELEMENTS 256
#define Q6_K_BLOCK_BYTES 210  // 128 bytes of low 4 bits, 64 of high 2 bits, 16 int8 unit scales, f16 scale

#endif
