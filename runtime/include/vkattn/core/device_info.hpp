// DeviceInfo: the limits and features of one physical device that decide kernel variants.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vkattn {

enum class DeviceKind { Discrete, Integrated, Virtual, Cpu, Other };

// Which family of kernels suits a device: CPU drivers want register-blocked, barrier-free
// kernels; GPUs want shared-memory tiles and wide workgroups.
enum class KernelProfile { CpuDriver, Gpu };

// Which cooperative-matrix extension a kernel's module uses (see coopmat_selection.hpp).
enum class CoopmatFlavour { None, Nv, Khr };

struct CooperativeMatrixShape {
  uint32_t m = 0, n = 0, k = 0;
  std::string aType, bType, cType, resultType;
  CoopmatFlavour flavour = CoopmatFlavour::Nv;  // the extension that reported it
  bool subgroupScope = true;                    // KHR shapes also come in other scopes
  bool saturating = false;
};

// VK_NV_cooperative_matrix2's features (the cooperative-matrix-2 attention kernel uses flexible
// dimensions, reductions, conversions and per-element operations, at subgroup scope).
struct CooperativeMatrix2Features {
  bool workgroupScope = false, flexibleDimensions = false, reductions = false, conversions = false,
       perElementOperations = false, tensorAddressing = false, blockLoads = false;
};

// PCI vendor ids of VkPhysicalDeviceProperties::vendorID that change a kernel choice.
inline constexpr uint32_t kVendorNvidia = 0x10de;
inline constexpr uint32_t kVendorIntel = 0x8086;
inline constexpr uint32_t kVendorAmd = 0x1002;

struct DeviceInfo {
  uint32_t index = 0;  // position in vkEnumeratePhysicalDevices
  std::string name;
  DeviceKind kind = DeviceKind::Other;
  uint32_t vendorId = 0;
  uint32_t apiVersion = 0;
  std::string driverName;
  std::string driverInfo;

  uint32_t subgroupSize = 1;
  uint32_t minSubgroupSize = 1;
  uint32_t maxSubgroupSize = 1;
  bool subgroupSizeControl = false;
  // VK_EXT_subgroup_size_control usable for compute pipelines: a required subgroup size
  // (subgroupSizeControl feature, compute in requiredSubgroupSizeStages) with full subgroups.
  bool computeSubgroupSizeControl = false;
  bool subgroupArithmetic = false;
  bool subgroupShuffle = false;
  // VkSubgroupFeatureFlags supported in compute shaders (0 when compute has no subgroup ops).
  uint32_t subgroupOperations = 0;
  uint32_t maxSharedMemoryBytes = 0;
  uint32_t maxWorkgroupInvocations = 0;
  uint32_t maxWorkgroupCount[3] = {0, 0, 0};
  uint64_t maxStorageBufferRange = 0;
  uint32_t maxPushConstantsSize = 0;
  uint64_t minStorageBufferOffsetAlignment = 0;
  uint64_t deviceLocalBytes = 0;
  // Compute units (NVIDIA SMs, AMD CUs, Arm shader cores) as the driver reports them through
  // VK_NV_shader_sm_builtins, VK_AMD_shader_core_properties(2) or VK_ARM_shader_core_builtins;
  // 0 where none of them is offered. computeUnitsSource names the extension.
  uint32_t computeUnits = 0;
  std::string computeUnitsSource;

  bool shaderFloat16 = false;
  bool shaderInt8 = false;
  bool storageBuffer16BitAccess = false;
  bool storageBuffer8BitAccess = false;
  // Vulkan 1.2's bufferDeviceAddress: the decode functions of the tensor-addressed weight loads
  // (linear_q_coopmat2_wg.comp) take buffer references.
  bool bufferDeviceAddress = false;
  // Dot products of four packed 8-bit integers done by an instruction of their own
  // (VkPhysicalDeviceShaderIntegerDotProductProperties): signed x signed, and signed x unsigned. AMD
  // accelerates the mixed form from RDNA3 on, the generation with matrix units (WMMA).
  bool integerDotProduct = false;  // the feature (shaderIntegerDotProduct): the instructions exist
  bool int8DotAccelerated = false;
  bool int8DotMixedSignednessAccelerated = false;
  // Timestamps on the queue family vkattn picks by default (compute, preferring graphics), and
  // how many bits of each result are valid there.
  bool timestamps = false;
  uint32_t timestampValidBits = 0;
  double timestampPeriodNs = 0.0;
  // Float controls (Vulkan 1.2): whether shaders may ask that NaN and Inf be preserved.
  bool nanPreserveFloat16 = false;
  bool nanPreserveFloat32 = false;
  // VK_KHR_portability_subset (MoltenVK and other layered drivers): must be enabled when offered.
  bool portabilitySubset = false;

  bool cooperativeMatrix = false;                               // either extension is offered
  bool nvCooperativeMatrix = false;                             // VK_NV_cooperative_matrix with its feature
  bool khrCooperativeMatrix = false;                            // VK_KHR_cooperative_matrix with its feature
  std::vector<CooperativeMatrixShape> cooperativeMatrixShapes;  // NV's and KHR's
  // VK_NV_cooperative_matrix2 (offered with VK_KHR_cooperative_matrix): its features, the largest
  // flexible dimension, and the flexible shapes, whose m, n and k are granularities (any multiple
  // of them up to the largest dimension).
  bool nvCooperativeMatrix2 = false;
  CooperativeMatrix2Features cooperativeMatrix2;
  uint32_t flexibleMaxDimension = 0;
  std::vector<CooperativeMatrixShape> flexibleShapes;
  // Workgroup-scope matrices: the largest workgroup that may use them, and the shared memory the
  // compiler reserves to stage them (taken from the workgroup's limit).
  uint32_t workgroupScopeMaxWorkgroupSize = 0;
  uint32_t workgroupScopeReservedSharedMemory = 0;
  bool vulkanMemoryModel = false;  // the Vulkan memory model with device scope
  // VK_KHR_pipeline_executable_properties with pipelineExecutableInfo: the driver reports each
  // pipeline's statistics (registers, spills, shared memory; names are the driver's own).
  bool pipelineExecutableInfo = false;
  // Vulkan 1.3's maintenance4: SPIR-V 1.6 modules give their workgroup size as LocalSizeId.
  bool maintenance4 = false;
  // The cooperative-matrix kernels can run (coopmatChoiceFor found a flavour): a usable f16 x f16
  // -> f32 subgroup shape of an enabled extension, shaderFloat16, 16-bit storage, the Vulkan memory
  // model and one subgroup size (fixed, or required through subgroup size control). The device
  // enables what the choice uses. Set by Context when it lists devices, not by queryDeviceInfo.
  bool cooperativeMatrixF16 = false;

  uint8_t pipelineCacheUuid[VK_UUID_SIZE] = {};

  // Most loop iterations one invocation may run, summed over all its loops, or 0 for no limit.
  // llvmpipe (lavapipe) silently ends loops after 65535 iterations per invocation; kernels spread
  // long loops over more invocations to stay below it.
  uint32_t loopIterationLimit = 0;

  KernelProfile defaultProfile() const noexcept {
    return kind == DeviceKind::Cpu ? KernelProfile::CpuDriver : KernelProfile::Gpu;
  }
};

const char* toString(DeviceKind kind) noexcept;
const char* toString(KernelProfile profile) noexcept;
const char* toString(CoopmatFlavour flavour) noexcept;

// Reads the properties and features of one physical device (all but cooperativeMatrixF16, which
// Context derives from them).
DeviceInfo queryDeviceInfo(VkInstance instance, VkPhysicalDevice device, uint32_t index);

}  // namespace vkattn
