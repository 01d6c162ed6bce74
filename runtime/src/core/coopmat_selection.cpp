// See coopmat_selection.hpp.
#include "vkattn/core/coopmat_selection.hpp"

#include "vkattn/core/pipeline.hpp"

namespace vkattn {
namespace {

bool hasF16Shape(const DeviceInfo& info, CoopmatFlavour flavour) {
  for (const auto& s : info.cooperativeMatrixShapes)
    if (s.flavour == flavour && s.subgroupScope && !s.saturating && s.m == 16 && s.n == 16 && s.k == 16 &&
        s.aType == "f16" && s.bType == "f16" && s.cType == "f32" && s.resultType == "f32")
      return true;
  return false;
}

}  // namespace

CoopmatChoice chooseCoopmat(const DeviceInfo& info, bool khrModuleEmbedded) {
  CoopmatChoice choice;
  auto none = [&](std::string why) {
    CoopmatChoice refused;
    refused.reason = std::move(why);
    return refused;
  };
  const bool khr = info.khrCooperativeMatrix && hasF16Shape(info, CoopmatFlavour::Khr);
  const bool nv = info.nvCooperativeMatrix && hasF16Shape(info, CoopmatFlavour::Nv);
  if (!khr && !nv) {
    if (info.khrCooperativeMatrix || info.nvCooperativeMatrix)
      return none("no 16x16x16 f16 x f16 -> f32 subgroup shape among the cooperative-matrix shapes of " + info.name);
    return none(info.name + " offers neither VK_KHR_cooperative_matrix nor VK_NV_cooperative_matrix");
  }
  if (!info.shaderFloat16 || !info.storageBuffer16BitAccess)
    return none(info.name + " lacks shaderFloat16 or 16-bit storage buffer access");
  if (!info.vulkanMemoryModel) return none(info.name + " lacks the Vulkan memory model");
  if ((info.subgroupOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) == 0)
    return none(info.name + " has no subgroup operations in compute shaders");
  // The kernels size workgroups in subgroups: the size must be fixed, or required per pipeline.
  choice.subgroupSize = info.subgroupSize;
  if (info.minSubgroupSize != info.maxSubgroupSize) {
    if (!info.computeSubgroupSizeControl)
      return none(info.name + " varies its subgroup size (" + std::to_string(info.minSubgroupSize) + ".." +
                  std::to_string(info.maxSubgroupSize) + ") without compute subgroup size control");
    choice.requireSubgroupSize = true;
    // 32 where the device allows it: the subgroup size NVIDIA's and AMD's (wave32) matrix units use.
    if (info.minSubgroupSize <= 32 && 32 <= info.maxSubgroupSize) choice.subgroupSize = 32;
  }
  if (khr && khrModuleEmbedded) {
    choice.flavour = CoopmatFlavour::Khr;
  } else if (nv) {
    choice.flavour = CoopmatFlavour::Nv;
    if (khr) choice.reason = "the kernel's KHR module is not built; using VK_NV_cooperative_matrix";
  } else {
    return none("the kernel's KHR module is not built (its NV module declares A and B as one type) and " +
                info.name + " has no VK_NV_cooperative_matrix");
  }
  return choice;
}

CoopmatChoice coopmatChoiceFor(const DeviceInfo& info, std::string_view kernel) {
  const std::string khrId = coopmatShader(kernel, CoopmatFlavour::Khr) + "_f16";
  bool embedded = false;
  for (const auto& name : shaderNames()) embedded = embedded || name == khrId;
  return chooseCoopmat(info, embedded);
}

std::string coopmatShader(std::string_view kernel, CoopmatFlavour flavour) {
  return std::string(kernel) + (flavour == CoopmatFlavour::Khr ? "_khr" : "");
}

}  // namespace vkattn
