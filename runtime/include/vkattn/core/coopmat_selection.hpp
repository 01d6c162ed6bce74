// Which cooperative-matrix module a kernel loads on a device: the SPV_KHR_cooperative_matrix twin
// (built by shaders/khr from the NV module) where VK_KHR_cooperative_matrix offers a 16 x 16 x 16
// f16 x f16 -> f32 subgroup shape, else the NV module where VK_NV_cooperative_matrix does, else
// none (with the reason). Also the subgroup size the kernel is sized for and whether its pipeline
// must require it (devices whose subgroup size varies).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "vkattn/core/device_info.hpp"

namespace vkattn {

struct CoopmatChoice {
  CoopmatFlavour flavour = CoopmatFlavour::None;
  uint32_t subgroupSize = 0;         // the kernels' workgroups are multiples of it
  bool requireSubgroupSize = false;  // pipelines require it, with full subgroups
  std::string reason;                // why None, or why NV was taken over KHR
};

// The choice for a kernel whose KHR twin is (`khrModuleEmbedded`) or is not built. Pure.
CoopmatChoice chooseCoopmat(const DeviceInfo& info, bool khrModuleEmbedded);

// The choice for one embedded kernel ("matmul_coopmat", "attention_coopmat", f16 storage).
CoopmatChoice coopmatChoiceFor(const DeviceInfo& info, std::string_view kernel);

// Registry base id of `kernel` for `flavour` (the dtype suffix follows): "<kernel>_khr" for KHR.
std::string coopmatShader(std::string_view kernel, CoopmatFlavour flavour);

}  // namespace vkattn
