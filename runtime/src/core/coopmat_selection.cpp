// See coopmat_selection.hpp.
#include "vkattn/core/coopmat_selection.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <tuple>

#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

// Fragment dimensions the kernels are written for: rows of 16 bytes of f16 (multiples of 8), and
// at most 32 so a subgroup's accumulators fit its registers.
bool usableDimension(uint32_t x) {
  return x == 8 || x == 16 || x == 32;
}

// The largest usable f16 x f16 -> f32 subgroup shape `flavour` reports (ties: more rows, then more
// columns), or none.
std::optional<CooperativeMatrixShape> bestF16Shape(const DeviceInfo& info, CoopmatFlavour flavour) {
  std::optional<CooperativeMatrixShape> best;
  for (const auto& s : info.cooperativeMatrixShapes) {
    if (s.flavour != flavour || !s.subgroupScope || s.saturating || s.aType != "f16" || s.bType != "f16" ||
        s.cType != "f32" || s.resultType != "f32" || !usableDimension(s.m) || !usableDimension(s.n) ||
        !usableDimension(s.k))
      continue;
    // The NV module is compiled for 16 x 16 x 16 (Debian 12's glslc has no specialised NV shapes).
    if (flavour == CoopmatFlavour::Nv && (s.m != 16 || s.n != 16 || s.k != 16)) continue;
    auto key = [](const CooperativeMatrixShape& x) { return std::tuple(x.m * x.n * x.k, x.m, x.n); };
    if (!best || key(s) > key(*best)) best = s;
  }
  return best;
}

std::string shapeList(const DeviceInfo& info) {
  std::string list;
  for (const auto& s : info.cooperativeMatrixShapes) {
    if (!list.empty()) list += ", ";
    list += std::string(toString(s.flavour)) + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
            std::to_string(s.k) + " " + s.aType + "*" + s.bType + "+" + s.cType + "->" + s.resultType;
  }
  return list.empty() ? "none" : list;
}

// Why `info`'s cooperative matrices would not run on matrix units, or empty. AMD's have them from
// RDNA3 on (WMMA); a driver that offers cooperative matrices on an older AMD GPU emulates them with
// vector instructions, slower than the tiled kernels. No Vulkan property names the generation:
// RDNA3 is the first to accelerate mixed-signedness 8-bit dot products (RADV: NAVI21 no, NAVI31,
// NAVI33, GFX1150 and GFX1201 yes).
std::string emulatedMatrixUnits(const DeviceInfo& info) {
  if (info.vendorId != kVendorAmd || info.int8DotMixedSignednessAccelerated) return {};
  return info.name +
         " is an AMD GPU before RDNA3 (no accelerated mixed-signedness 8-bit dot products), without matrix "
         "units: its driver would emulate cooperative matrices (VKATTN_COOPMAT=khr or nv forces them)";
}

}  // namespace

CoopmatChoice chooseCoopmat(const DeviceInfo& info, CoopmatRequest request) {
  auto none = [](std::string why) {
    CoopmatChoice refused;
    refused.reason = std::move(why);
    return refused;
  };
  if (request == CoopmatRequest::Off) return none("cooperative matrices are turned off (VKATTN_COOPMAT=off)");
  const bool khrAllowed = request != CoopmatRequest::Nv, nvAllowed = request != CoopmatRequest::Khr;
  const auto khr = info.khrCooperativeMatrix && khrAllowed ? bestF16Shape(info, CoopmatFlavour::Khr) : std::nullopt;
  const auto nv = info.nvCooperativeMatrix && nvAllowed ? bestF16Shape(info, CoopmatFlavour::Nv) : std::nullopt;
  if (!khr && !nv) {
    const std::string forced = request == CoopmatRequest::Khr  ? " (VKATTN_COOPMAT=khr)"
                               : request == CoopmatRequest::Nv ? " (VKATTN_COOPMAT=nv)"
                                                               : "";
    if ((info.khrCooperativeMatrix && khrAllowed) || (info.nvCooperativeMatrix && nvAllowed))
      return none("no usable f16 x f16 -> f32 subgroup shape (8, 16 or 32 per side; 16x16x16 for NV) among " +
                  info.name + "'s cooperative-matrix shapes" + forced + ": " + shapeList(info));
    return none(info.name + " offers " +
                (request == CoopmatRequest::Khr  ? std::string("no VK_KHR_cooperative_matrix")
                 : request == CoopmatRequest::Nv ? std::string("no VK_NV_cooperative_matrix")
                                                 : std::string("neither VK_KHR_cooperative_matrix nor "
                                                               "VK_NV_cooperative_matrix")) +
                forced);
  }
  if (const std::string emulated = emulatedMatrixUnits(info); request == CoopmatRequest::Auto && !emulated.empty())
    return none(emulated);
  if (!info.shaderFloat16 || !info.storageBuffer16BitAccess)
    return none(info.name + " lacks shaderFloat16 or 16-bit storage buffer access");
  if (!info.vulkanMemoryModel) return none(info.name + " lacks the Vulkan memory model (with device scope)");
  if ((info.subgroupOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) == 0)
    return none(info.name + " has no subgroup operations in compute shaders");
  CoopmatChoice choice;
  // The kernels size workgroups in subgroups: the size must be fixed, or required per pipeline.
  choice.subgroupSize = info.subgroupSize;
  const bool varies = info.minSubgroupSize != info.maxSubgroupSize;
  if (varies) {
    if (!info.computeSubgroupSizeControl)
      return none(info.name + " varies its subgroup size (" + std::to_string(info.minSubgroupSize) + ".." +
                  std::to_string(info.maxSubgroupSize) + ") without compute subgroup size control");
    choice.requireSubgroupSize = true;
  }
  // The KHR module is SPIR-V 1.5 (the runtime targets Vulkan 1.2), where the extension's
  // instructions are valid only in pipelines created with full subgroups: subgroup size control.
  const bool khrRuns = khr && info.computeSubgroupSizeControl;
  if (!khrRuns && !nv)
    return none(info.name +
                " lacks compute subgroup size control with full subgroups, which the "
                "VK_KHR_cooperative_matrix module (SPIR-V 1.5) needs");
  const CooperativeMatrixShape& shape = khrRuns ? *khr : *nv;
  choice.flavour = khrRuns ? CoopmatFlavour::Khr : CoopmatFlavour::Nv;
  if (khrRuns) choice.requireSubgroupSize = true;
  choice.m = shape.m;
  choice.n = shape.n;
  choice.k = shape.k;
  if (varies) {
    // The width the kernels run at, where the device allows it: NVIDIA's matrix units' 32; on AMD
    // wave64, where each lane holds half a wave32 lane's accumulators (AMD's compiler, RDNA3:
    // the attention kernel at D = 128 fits without spilling, 4 waves per SIMD, where wave32 spilled
    // 18 VGPRs at 3); on Intel the matrix engine's, the fragment's N (8 on Xe-HPG, 16 on Xe2).
    const uint32_t width = info.vendorId == kVendorIntel ? shape.n : info.vendorId == kVendorAmd ? 64 : 32;
    if (info.minSubgroupSize <= width && width <= info.maxSubgroupSize) choice.subgroupSize = width;
  }
  if (!khr && info.khrCooperativeMatrix && khrAllowed)
    choice.reason = "VK_KHR_cooperative_matrix has no usable shape; using VK_NV_cooperative_matrix";
  else if (khr && !khrRuns)
    choice.reason = "VK_KHR_cooperative_matrix needs subgroup size control here; using VK_NV_cooperative_matrix";
  return choice;
}

namespace {
// The flexible f16 x f16 -> f32 shape of the given scope (subgroup, else workgroup) whose
// granularities are powers of two from 8 to maxGranularity, with the least padding of the columns
// and the inner dimension; nullptr when there is none.
const CooperativeMatrixShape* leastPaddedF16Shape(const DeviceInfo& info, bool subgroupScope, uint32_t maxGranularity) {
  auto granularity = [&](uint32_t g) { return g >= 8 && g <= maxGranularity && (g & (g - 1)) == 0; };
  const CooperativeMatrixShape* best = nullptr;
  for (const auto& s : info.flexibleShapes) {
    if (s.subgroupScope != subgroupScope || s.saturating || s.aType != "f16" || s.bType != "f16" || s.cType != "f32" ||
        s.resultType != "f32" || !granularity(s.m) || !granularity(s.n) || !granularity(s.k))
      continue;
    if (!best || std::max(s.n, s.k) < std::max(best->n, best->k)) best = &s;
  }
  return best;
}
}  // namespace

Coopmat2Choice chooseCoopmat2(const DeviceInfo& info, CoopmatRequest request) {
  Coopmat2Choice choice;
  auto none = [&](std::string why) {
    choice.reason = std::move(why);
    return choice;
  };
  if (request == CoopmatRequest::Off) return none("cooperative matrices are turned off (VKATTN_COOPMAT=off)");
  if (!info.nvCooperativeMatrix2) return none(info.name + " offers no VK_NV_cooperative_matrix2");
  const CooperativeMatrix2Features& f = info.cooperativeMatrix2;
  if (!f.flexibleDimensions || !f.reductions || !f.conversions || !f.perElementOperations)
    return none(info.name +
                "'s VK_NV_cooperative_matrix2 lacks one of flexible dimensions, reductions, "
                "conversions and per-element operations");
  if (!info.khrCooperativeMatrix) return none(info.name + " lacks VK_KHR_cooperative_matrix, which it builds on");
  if (const std::string emulated = emulatedMatrixUnits(info); request == CoopmatRequest::Auto && !emulated.empty())
    return none(emulated);
  if (VK_API_VERSION_MAJOR(info.apiVersion) == 1 && VK_API_VERSION_MINOR(info.apiVersion) < 3)
    return none(info.name + " is a Vulkan 1.2 device; the cooperative-matrix-2 module is SPIR-V 1.6 (Vulkan 1.3)");
  if (!info.maintenance4) return none(info.name + " lacks maintenance4, which SPIR-V 1.6 workgroup sizes need");
  if (!info.shaderFloat16 || !info.storageBuffer16BitAccess)
    return none(info.name + " lacks shaderFloat16 or 16-bit storage buffer access");
  if (!info.vulkanMemoryModel) return none(info.name + " lacks the Vulkan memory model (with device scope)");
  if (!info.computeSubgroupSizeControl)
    return none(info.name + " lacks compute subgroup size control with full subgroups");
  const CooperativeMatrixShape* best = leastPaddedF16Shape(info, true, 32);
  if (!best)
    return none("no flexible f16 x f16 -> f32 subgroup shape with granularities of 8, 16 or 32 among " + info.name +
                "'s VK_NV_cooperative_matrix2 shapes");
  choice.rows = best->m;
  choice.pad = std::max<uint32_t>({best->n, best->k, 8});
  choice.maxDimension = info.flexibleMaxDimension;
  choice.subgroupSize = info.subgroupSize;
  if (info.minSubgroupSize != info.maxSubgroupSize && info.minSubgroupSize <= 32 && 32 <= info.maxSubgroupSize)
    choice.subgroupSize = 32;
  choice.usable = true;
  return choice;
}

Coopmat2Choice coopmat2ChoiceFor(const DeviceInfo& info) {
  return chooseCoopmat2(info, coopmatRequestFromEnvironment());
}

std::string describe(const Coopmat2Choice& choice) {
  if (!choice.usable) return "none (" + choice.reason + ")";
  return "NV2 flexible, " + std::to_string(choice.rows) + " rows x granularity " + std::to_string(choice.pad) +
         " (dimensions <= " + std::to_string(choice.maxDimension) + "), subgroup " +
         std::to_string(choice.subgroupSize) + " (required)";
}

Coopmat2WorkgroupChoice chooseCoopmat2Workgroup(const DeviceInfo& info, CoopmatRequest request) {
  Coopmat2WorkgroupChoice choice;
  auto none = [&](std::string why) {
    choice.reason = std::move(why);
    return choice;
  };
  if (const Coopmat2Choice base = chooseCoopmat2(info, request); !base.usable) return none(base.reason);
  const CooperativeMatrix2Features& f = info.cooperativeMatrix2;
  if (!f.workgroupScope || !f.tensorAddressing)
    return none(info.name + "'s VK_NV_cooperative_matrix2 lacks workgroup scope or tensor addressing");
  const CooperativeMatrixShape* best = leastPaddedF16Shape(info, false, 64);
  if (!best)
    return none("no flexible f16 x f16 -> f32 workgroup-scope shape with granularities of 8 to 64 among " + info.name +
                "'s VK_NV_cooperative_matrix2 shapes");
  choice.rows = best->m;
  choice.pad = std::max<uint32_t>({best->n, best->k, 8});
  choice.maxDimension = info.flexibleMaxDimension;
  choice.maxWorkgroup = info.workgroupScopeMaxWorkgroupSize;
  choice.usable = true;
  return choice;
}

Coopmat2WorkgroupChoice coopmat2WorkgroupChoiceFor(const DeviceInfo& info) {
  return chooseCoopmat2Workgroup(info, coopmatRequestFromEnvironment());
}

std::string describe(const Coopmat2WorkgroupChoice& choice) {
  if (!choice.usable) return "none (" + choice.reason + ")";
  return "NV2 workgroup scope, " + std::to_string(choice.rows) + " rows x granularity " + std::to_string(choice.pad) +
         " (dimensions <= " + std::to_string(choice.maxDimension) +
         "), workgroups <= " + std::to_string(choice.maxWorkgroup);
}

CoopmatRequest coopmatRequestFromEnvironment() {
  const char* value = std::getenv("VKATTN_COOPMAT");
  if (value == nullptr || *value == '\0') return CoopmatRequest::Auto;
  const std::string_view s(value);
  if (s == "auto") return CoopmatRequest::Auto;
  if (s == "khr") return CoopmatRequest::Khr;
  if (s == "nv") return CoopmatRequest::Nv;
  if (s == "off") return CoopmatRequest::Off;
  throw InvalidArgument("VKATTN_COOPMAT", "'" + std::string(s) + "', expected khr, nv, off or auto");
}

CoopmatChoice coopmatChoiceFor(const DeviceInfo& info) {
  return chooseCoopmat(info, coopmatRequestFromEnvironment());
}

std::string describe(const CoopmatChoice& choice) {
  if (choice.flavour == CoopmatFlavour::None) return "none (" + choice.reason + ")";
  return std::string(toString(choice.flavour)) + " " + std::to_string(choice.m) + "x" + std::to_string(choice.n) + "x" +
         std::to_string(choice.k) + ", subgroup " + std::to_string(choice.subgroupSize) +
         (choice.requireSubgroupSize ? " (required)" : "") + (choice.reason.empty() ? "" : "; " + choice.reason);
}

std::string coopmatShader(std::string_view kernel, CoopmatFlavour flavour) {
  return std::string(kernel) + (flavour == CoopmatFlavour::Khr ? "_khr" : "");
}

}  // namespace vkattn
