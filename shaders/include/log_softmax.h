// log_softmax.comp's interface, shared by GLSL and C++ (as kernel_interface.h and
// push_constants.h are for the older kernels): its bindings (set 0) and its push-constant block.
#ifndef VKATTN_LOG_SOFTMAX_H
#define VKATTN_LOG_SOFTMAX_H

#define LOG_SOFTMAX_BINDING_X 0  // ELEM, read (also viewed as vec4 words)
#define LOG_SOFTMAX_BINDING_Y 1  // ELEM, written (also viewed as vec4 words)
#define LOG_SOFTMAX_BINDING_STATUS 2
#define LOG_SOFTMAX_BINDING_COUNT 3

#ifdef __cplusplus
#include <cstdint>
namespace vkattn::pc {
using uint = std::uint32_t;
#endif

// y[r, :] = scale * x[r, :] - log(sum_c exp(scale * x[r, c])), over `rows` rows of `cols` values;
// vec4Rows: cols % 4 == 0, so rows are read and written as vec4 words.
struct LogSoftmaxParams {
  uint rows;
  uint cols;
  float scale;
  uint vec4Rows;
  uint statusSlot;
};

#ifdef __cplusplus
}  // namespace vkattn::pc
#endif

#endif
