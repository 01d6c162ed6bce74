// Shared by the kernels that read K and V rows directly (rows, decode): where key j's row starts,
// in a dense [B, Hkv, Lk, D] tensor or through a paged cache's block table. The includer declares
// `p` (AttentionParams) and includes attention_common.glsl first, and defines KV_ALIGNMENT: the
// element multiple every row start has when ALIGNED.
#ifndef VKATTN_ATTENTION_KV_ROW_GLSL
#define VKATTN_ATTENTION_KV_ROW_GLSL

layout(std430, set = 0, binding = ATTN_BINDING_PAGES) readonly buffer Pages { int pages[]; };

// Element offset of key j's row in K or V (offset and strides `off`, `sB`, `sH`, `sL`; `len`
// elements bound, head dim D): dense, or through the block table. Block numbers live on the device
// and are not checked: a row past the buffer is clamped into it, so a bad table reads wrong keys,
// never outside the buffer.
uint kvRow(uint off, uint sB, uint sH, uint sL, uint len, uint D, uint b, uint kvh, uint j) {
  if (PAGE_SIZE == 0u) return off + b * sB + kvh * sH + (firstKeyRow(b) + j) * sL;
  const uint block = uint(max(pages[b * (p.lk / PAGE_SIZE) + j / PAGE_SIZE], 0));
  const uint row = off + block * sB + kvh * sH + (j % PAGE_SIZE) * sL;
  const uint last = len - D;
  return min(row, ALIGNED ? last / KV_ALIGNMENT * KV_ALIGNMENT : last);
}

#endif
