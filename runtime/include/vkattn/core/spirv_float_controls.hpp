// NaN and Inf preservation for the kernels' NaN reports. Vulkan lets a driver assume that float
// operands and results are never NaN or Inf unless the module declares the SignedZeroInfNanPreserve
// execution mode (SPV_KHR_float_controls, core in SPIR-V 1.4 and Vulkan 1.2) for that width; a
// driver that assumes it may fold isnan() to false and the kernels' NaN reports would go silent.
// The mode may only be declared where the device reports shaderSignedZeroInfNanPreserveFloatN, so
// it is added to the embedded modules when a pipeline is created (a few words inserted, nothing
// compiled) rather than at build time.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace vkattn {

// `code` with SignedZeroInfNanPreserve declared for every entry point and for each float width
// (16, 32) that the module declares and the flags allow; the capability (and, before SPIR-V 1.4,
// the extension) is added once. Widths the module already preserves are left alone, so applying
// it twice changes nothing. Throws Error for a module that is not SPIR-V.
std::vector<uint32_t> withNanPreserve(std::span<const uint32_t> code, bool float16, bool float32);

}  // namespace vkattn
