// Push constants of the viewer's bin-image drawing (bin_image.vert, bin_image.frag), shared with
// render/bin_image_renderer.cpp. A bin image is a heatmap drawn as one quad: each pixel looks up
// the bin its centre falls in and takes that bin's colour.
#ifndef VKATTN_VIEWER_BIN_IMAGE_PUSH_H
#define VKATTN_VIEWER_BIN_IMAGE_PUSH_H

#define BIN_IMAGE_BINDING_WORDS 0
// A pixel whose centre lies in no bin: nothing is drawn there.
#define BIN_IMAGE_NO_BIN 0xFFFFFFFFu

#ifdef __cplusplus
#include <cstdint>
namespace vkattn::viewer::pc {
using uint = std::uint32_t;
#endif

// Scalars only, so that the C++ and GLSL layouts agree without padding rules.
struct BinImageParams {
  // The quad, in normalised device coordinates (vertex stage).
  float left, top, right, bottom;
  // The image's top-left corner in framebuffer pixels, and image pixels per framebuffer pixel.
  float originX, originY, scaleX, scaleY;
  // Image size in pixels; word offsets of the per-pixel column bins [width], row bins [height] and
  // the colours [rows of bins][binCols] (RGBA8, red in the low byte) in the frame's words.
  uint width, height;
  uint colBinsOffset, rowBinsOffset, colorsOffset, binCols;
};

#ifdef __cplusplus
}  // namespace vkattn::viewer::pc
#endif

#endif
