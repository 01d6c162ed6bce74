#version 450
// bin_image.frag: colours a pixel of a bin image with the colour of the bin its centre falls in.
// Binding 0: the frame's words (uint: per-pixel column and row bins, packed RGBA8 colours).
// Push: BinImageParams. Exact: the colours are those the CPU computed, unpacked as ImGui's vertex
// colours are, so a bin image matches the quads it replaces pixel for pixel.
#include "bin_image_push.h"

layout(push_constant) uniform Push { BinImageParams p; };
layout(std430, set = 0, binding = BIN_IMAGE_BINDING_WORDS) readonly buffer Words { uint words[]; };

layout(location = 0) out vec4 color;

void main() {
  const vec2 local = (gl_FragCoord.xy - vec2(p.originX, p.originY)) * vec2(p.scaleX, p.scaleY);
  if (local.x < 0.0 || local.y < 0.0) discard;
  const uint i = uint(local.x), j = uint(local.y);
  if (i >= p.width || j >= p.height) discard;
  const uint x = words[p.colBinsOffset + i], y = words[p.rowBinsOffset + j];
  if (x == BIN_IMAGE_NO_BIN || y == BIN_IMAGE_NO_BIN) discard;
  color = unpackUnorm4x8(words[p.colorsOffset + y * p.binCols + x]);
}
