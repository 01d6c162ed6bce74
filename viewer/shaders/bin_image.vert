#version 450
// bin_image.vert: the quad of one bin image, as a 4-vertex triangle strip without vertex input.
// Push: BinImageParams (left, top, right, bottom).
#include "bin_image_push.h"

layout(push_constant) uniform Push { BinImageParams p; };

void main() {
  const vec2 corner = vec2(float(gl_VertexIndex & 1), float(gl_VertexIndex >> 1));
  gl_Position = vec4(mix(p.left, p.right, corner.x), mix(p.top, p.bottom, corner.y), 0.0, 1.0);
}
