// x quantized to 8 bits in blocks of 32 along K: quantize_x_q8.comp writes it,
// linear_q_matvec_int8.comp reads it, for the p.m rows of x (MatmulParams) of p.k columns (a
// multiple of 32) in 32-bit words: first row m's quants, p.k / 4 words of four signed bytes from
// word m * p.k / 4 (column k in byte k % 4 of word k / 4); then each block's d and d * (sum of its
// quants) as two floats, block b of row m from word p.m * p.k / 4 + 2 * (m * p.k / 32 + b).
// x[m, k] ~ d * q with |q| <= 127, d = max |x| / 127 over the block (NaN where the block holds one).
// The runtime sizes the buffer as xQ8Bytes (weight_kernel.cpp).
#ifndef VKATTN_X_Q8_GLSL
#define VKATTN_X_Q8_GLSL

uint xQ8Word(uint m, uint k) { return m * (p.k / 4u) + k / 4u; }
uint xQ8BlockWord(uint m, uint k) { return p.m * (p.k / 4u) + 2u * (m * (p.k / 32u) + k / 32u); }

#endif
