// IEEE binary16 <-> binary32 conversion on the host (round to nearest even; inf/NaN kept).
#pragma once

#include <cstdint>

namespace vkattn {

uint16_t floatToHalf(float value) noexcept;
float halfToFloat(uint16_t bits) noexcept;

}  // namespace vkattn
