// Which cooperative-matrix module a kernel loads on a device, and at which fragment shape: the
// SPV_KHR_cooperative_matrix module where VK_KHR_cooperative_matrix offers a usable f16 x f16 ->
// f32 subgroup shape (the largest one: NVIDIA and AMD 16x16x16, Intel Xe2 8x16x16, lavapipe 8x8x8),
// else the NV module where VK_NV_cooperative_matrix offers 16x16x16, else none (with the reason).
// Also the subgroup size the kernels are sized for and whether their pipelines must require it
// (devices whose subgroup size varies, and every KHR pipeline). VKATTN_COOPMAT=khr|nv|off forces a
// flavour (or none).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "vkattn/core/device_info.hpp"

namespace vkattn {

struct CoopmatChoice {
  CoopmatFlavour flavour = CoopmatFlavour::None;
  uint32_t m = 0, n = 0, k = 0;      // fragment shape: A m x k, B k x n, accumulator m x n
  uint32_t subgroupSize = 0;         // the kernels' workgroups are multiples of it
  bool requireSubgroupSize = false;  // pipelines require it, with full subgroups
  std::string reason;                // why None, or why the flavour differs from the preferred one
};

// What may be chosen: any flavour, or only the one forced (Off: no cooperative matrices at all).
enum class CoopmatRequest { Auto, Khr, Nv, Off };

// The choice on `info` for `request`. Pure.
CoopmatChoice chooseCoopmat(const DeviceInfo& info, CoopmatRequest request = CoopmatRequest::Auto);

// The request VKATTN_COOPMAT makes (Auto when unset); throws InvalidArgument naming the variable
// for any other value than khr, nv, off or auto.
CoopmatRequest coopmatRequestFromEnvironment();

// chooseCoopmat(info, coopmatRequestFromEnvironment()): what the kernels load and the device enables.
CoopmatChoice coopmatChoiceFor(const DeviceInfo& info);

// "KHR 8x8x8, subgroup 8 (required)", or "none (<reason>)": how `vkattn devices` and
// `vkattn conformance` name the choice.
std::string describe(const CoopmatChoice& choice);

// Whether the cooperative-matrix-2 attention kernel (attention_coopmat2_f16) runs on a device:
// VK_NV_cooperative_matrix2 with flexible dimensions, reductions, conversions and per-element operations, a flexible
// f16 x f16 -> f32 subgroup shape (granularities of 8, 16 or 32), VK_KHR_cooperative_matrix, Vulkan 1.3 (the module is
// SPIR-V 1.6), shaderFloat16, 16-bit storage, the memory model and subgroup size control. rows is the query rows per
// subgroup (the row granularity); pad the granularity head dims and key tiles are padded to (of the columns and the
// inner dimension).
struct Coopmat2Choice {
  bool usable = false;
  uint32_t rows = 0, pad = 0;
  uint32_t maxDimension = 0;  // the largest flexible dimension
  uint32_t subgroupSize = 0;  // required by the pipeline, with full subgroups
  std::string reason;         // why not usable
};

// The cooperative-matrix-2 choice on `info`; only CoopmatRequest::Off refuses it by request. Pure.
Coopmat2Choice chooseCoopmat2(const DeviceInfo& info, CoopmatRequest request = CoopmatRequest::Auto);

// chooseCoopmat2(info, coopmatRequestFromEnvironment()).
Coopmat2Choice coopmat2ChoiceFor(const DeviceInfo& info);

// "NV2 flexible, 8 rows x granularity 8, subgroup 8 (required)", or "none (<reason>)".
std::string describe(const Coopmat2Choice& choice);

// Whether the workgroup-scope twin of that kernel (attention_coopmat2_wg_f16) runs on a device:
// what the cooperative-matrix-2 kernel needs, plus workgroup-scope matrices, tensor addressing and
// a flexible f16 x f16 -> f32 workgroup-scope shape. rows and pad are that shape's granularities
// (of the rows, and of the columns and the inner dimension), maxWorkgroup the largest workgroup
// that may use such matrices.
struct Coopmat2WorkgroupChoice {
  bool usable = false;
  uint32_t rows = 0, pad = 0;
  uint32_t maxDimension = 0;
  uint32_t maxWorkgroup = 0;
  std::string reason;  // why not usable
};

// The workgroup-scope choice on `info`; only CoopmatRequest::Off refuses it by request. Pure.
Coopmat2WorkgroupChoice chooseCoopmat2Workgroup(const DeviceInfo& info, CoopmatRequest request = CoopmatRequest::Auto);

// chooseCoopmat2Workgroup(info, coopmatRequestFromEnvironment()).
Coopmat2WorkgroupChoice coopmat2WorkgroupChoiceFor(const DeviceInfo& info);

// "NV2 workgroup scope, 64 rows x granularity 16, workgroups <= 256", or "none (<reason>)".
std::string describe(const Coopmat2WorkgroupChoice& choice);

// Registry base id of `kernel` for `flavour` (the dtype suffix follows): "<kernel>_khr" for KHR.
std::string coopmatShader(std::string_view kernel, CoopmatFlavour flavour);

}  // namespace vkattn
