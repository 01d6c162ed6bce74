// DeviceInfo: the limits and features of one physical device that decide kernel variants.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

namespace vkattn {

enum class DeviceKind { Discrete, Integrated, Virtual, Cpu, Other };

// Which family of kernels suits a device: CPU drivers want register-blocked, barrier-free
// kernels; GPUs want shared-memory tiles and wide workgroups.
enum class KernelProfile { CpuDriver, Gpu };

struct CooperativeMatrixShape {
  uint32_t m = 0, n = 0, k = 0;
  std::string aType, bType, cType, resultType;
};

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
  bool subgroupArithmetic = false;
  bool subgroupShuffle = false;
  uint32_t maxSharedMemoryBytes = 0;
  uint32_t maxWorkgroupInvocations = 0;
  uint32_t maxWorkgroupCount[3] = {0, 0, 0};
  uint64_t maxStorageBufferRange = 0;
  uint32_t maxPushConstantsSize = 0;
  uint64_t minStorageBufferOffsetAlignment = 0;
  uint64_t deviceLocalBytes = 0;

  bool shaderFloat16 = false;
  bool shaderInt8 = false;
  bool storageBuffer16BitAccess = false;
  bool storageBuffer8BitAccess = false;
  bool timestamps = false;
  double timestampPeriodNs = 0.0;

  bool cooperativeMatrix = false;
  std::vector<CooperativeMatrixShape> cooperativeMatrixShapes;
  bool vulkanMemoryModel = false;
  // Everything matmul_coopmat.comp needs: VK_NV_cooperative_matrix with its feature, a 16 x 16 x 16
  // f16 x f16 -> f32 shape, shaderFloat16, 16-bit storage, the Vulkan memory model and one fixed
  // subgroup size. The device enables the extension when this holds.
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

// Reads the properties and features of one physical device.
DeviceInfo queryDeviceInfo(VkInstance instance, VkPhysicalDevice device, uint32_t index);

}  // namespace vkattn
