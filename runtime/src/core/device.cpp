#include "vkattn/core/device.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string_view>
#include <vector>

#include "khr_cooperative_matrix_api.hpp"
#include "nv_cooperative_matrix2_api.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/vulkan_error.hpp"

namespace vkattn {
namespace {

// The compute queue family, also satisfying the caller's flags and filter. Prefer a family that
// also does graphics: it has timestamps on every driver we know and the viewer can share it.
uint32_t findComputeQueueFamily(VkPhysicalDevice physical, const DeviceInfo& info, const DeviceOptions& options) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  const VkQueueFlags required = VK_QUEUE_COMPUTE_BIT | options.queueFlags;
  auto usable = [&](uint32_t i) {
    return (families[i].queueFlags & required) == required &&
           (!options.queueFamilyFilter || options.queueFamilyFilter(physical, i));
  };
  for (uint32_t i = 0; i < count; ++i)
    if (usable(i) && (families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) return i;
  for (uint32_t i = 0; i < count; ++i)
    if (usable(i)) return i;
  if (required == VK_QUEUE_COMPUTE_BIT && !options.queueFamilyFilter) throw Unsupported("device has no compute queue");
  throw Unsupported("no queue family of " + info.name +
                    " does compute together with what the caller asked for (graphics, or presenting to "
                    "its window); choose another device with VKATTN_DEVICE");
}

// The caller's device extensions, each checked so that a missing one is named.
std::vector<const char*> requestedDeviceExtensions(VkPhysicalDevice physical, const DeviceInfo& info,
                                                   const DeviceOptions& options) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> available(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, available.data());
  std::vector<const char*> names;
  for (const std::string& name : options.extensions) {
    bool found = false;
    for (const auto& extension : available) found = found || name == extension.extensionName;
    if (!found) throw Unsupported("device extension " + name + " is not supported by " + info.name);
    names.push_back(name.c_str());
  }
  return names;
}

uint32_t queueFamilyTimestampBits(VkPhysicalDevice physical, uint32_t family) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  return family < count ? families[family].timestampValidBits : 0;
}

std::vector<char> readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

std::filesystem::path defaultPipelineCachePath(const DeviceInfo& info) {
  std::filesystem::path dir;
  if (const char* explicitPath = std::getenv("VKATTN_PIPELINE_CACHE"); explicitPath && *explicitPath)
    return explicitPath;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    dir = std::filesystem::path(xdg) / "vkattn";
  else if (const char* home = std::getenv("HOME"); home && *home)
    dir = std::filesystem::path(home) / ".cache" / "vkattn";
  else
    return {};
  static const char* hex = "0123456789abcdef";
  std::string name;
  for (uint8_t b : info.pipelineCacheUuid) {
    name += hex[b >> 4];
    name += hex[b & 15];
  }
  return dir / ("pipelines-" + name + ".bin");
}

Device::Device(const Instance& instance, VkPhysicalDevice physical, DeviceInfo info,
               std::filesystem::path pipelineCachePath, const DeviceOptions& options)
    : m_instance(instance),
      m_physical(physical),
      m_info(std::move(info)),
      m_pipelineCachePath(std::move(pipelineCachePath)),
      m_compileOnly(options.compileOnly) {
  m_queueFamily = findComputeQueueFamily(physical, m_info, options);
  std::vector<const char*> extensions = requestedDeviceExtensions(physical, m_info, options);
  auto enable = [&extensions](const char* name) {
    if (std::none_of(extensions.begin(), extensions.end(), [&](const char* e) { return std::string_view(e) == name; }))
      extensions.push_back(name);
  };
  // What the cooperative-matrix kernels will load here decides which extension they need.
  const CoopmatFlavour coopmatFlavour = coopmatChoiceFor(m_info).flavour;
  const bool nvCoopmat = coopmatFlavour == CoopmatFlavour::Nv;
  // The cooperative-matrix-2 kernel builds on VK_KHR_cooperative_matrix.
  const bool coopmat2 = coopmat2ChoiceFor(m_info).usable;
  const bool khrCoopmat = coopmatFlavour == CoopmatFlavour::Khr || coopmat2;
  // Pipelines may require a subgroup size (PipelineDesc::requiredSubgroupSize) wherever the
  // device can honour it.
  const bool sizeControl = m_info.computeSubgroupSizeControl;
  if (nvCoopmat) enable(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  if (khrCoopmat) enable(detail::kKhrCooperativeMatrixExtension);
  if (coopmat2) enable(detail::kNvCooperativeMatrix2Extension);
  if (sizeControl) enable(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  // The integer-dot matrix-vector kernel's packed dot products (an extension before Vulkan 1.3).
  const bool integerDot = m_info.integerDotProduct;
  const bool vulkan13 = VK_API_VERSION_MAJOR(m_info.apiVersion) > 1 || VK_API_VERSION_MINOR(m_info.apiVersion) >= 3;
  if (integerDot && !vulkan13) enable(VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
  const char* statistics = std::getenv("VKATTN_PIPELINE_STATISTICS");
  m_captureStatistics = m_info.pipelineExecutableInfo && statistics && std::string_view(statistics) == "1";
  if (m_captureStatistics) enable(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  // Required whenever offered (the device implements only a subset of Vulkan, e.g. MoltenVK).
  if (m_info.portabilitySubset) enable("VK_KHR_portability_subset");
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = m_queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;

  // Enable exactly the optional features the kernels may use, where the device has them.
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  v12.shaderFloat16 = m_info.shaderFloat16;
  v12.shaderInt8 = m_info.shaderInt8;
  v12.storageBuffer8BitAccess = m_info.storageBuffer8BitAccess;
  // The cooperative-matrix kernels' memory model, with device scope: once the model is enabled,
  // every module's device-scope atomics (the status buffer's atomicOr) need that feature too.
  v12.vulkanMemoryModel = nvCoopmat || khrCoopmat;
  v12.vulkanMemoryModelDeviceScope = nvCoopmat || khrCoopmat;
  auto chain = [&v12](auto& next) {
    next.pNext = v12.pNext;
    v12.pNext = &next;
  };
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  coopmat.cooperativeMatrix = VK_TRUE;
  if (nvCoopmat) chain(coopmat);
  detail::PhysicalDeviceCooperativeMatrixFeaturesKhr coopmatKhr;
  coopmatKhr.cooperativeMatrix = VK_TRUE;
  if (khrCoopmat) chain(coopmatKhr);
  detail::PhysicalDeviceCooperativeMatrix2FeaturesNv coopmat2Features;
  coopmat2Features.cooperativeMatrixFlexibleDimensions = VK_TRUE;
  coopmat2Features.cooperativeMatrixReductions = VK_TRUE;
  coopmat2Features.cooperativeMatrixConversions = VK_TRUE;
  coopmat2Features.cooperativeMatrixPerElementOperations = VK_TRUE;
  // The workgroup-scope twin's (attention_coopmat2_wg.comp), where offered.
  coopmat2Features.cooperativeMatrixWorkgroupScope = m_info.cooperativeMatrix2.workgroupScope;
  coopmat2Features.cooperativeMatrixTensorAddressing = m_info.cooperativeMatrix2.tensorAddressing;
  // The weight kernel's decode functions (linear_q_coopmat2_wg.comp): block loads through buffer
  // references.
  const bool blockLoads =
      m_info.cooperativeMatrix2.tensorAddressing && m_info.cooperativeMatrix2.blockLoads && m_info.bufferDeviceAddress;
  coopmat2Features.cooperativeMatrixBlockLoads = blockLoads;
  if (coopmat2 && blockLoads) v12.bufferDeviceAddress = VK_TRUE;
  if (coopmat2) chain(coopmat2Features);
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  executableFeatures.pipelineExecutableInfo = VK_TRUE;
  if (m_captureStatistics) chain(executableFeatures);
  // The SPIR-V 1.6 module (cooperative matrix 2) gives its workgroup size as LocalSizeId.
  // Vulkan 1.3's feature block then also carries subgroup size control (promoted to 1.3), which
  // may not be chained twice.
  VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  v13.maintenance4 = VK_TRUE;
  v13.subgroupSizeControl = sizeControl;
  v13.computeFullSubgroups = sizeControl;
  v13.shaderIntegerDotProduct = integerDot;
  if (coopmat2) chain(v13);
  VkPhysicalDeviceShaderIntegerDotProductFeatures integerDotFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES};
  integerDotFeatures.shaderIntegerDotProduct = VK_TRUE;
  if (integerDot && !coopmat2) chain(integerDotFeatures);
  VkPhysicalDeviceSubgroupSizeControlFeaturesEXT sizeControlFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT};
  sizeControlFeatures.subgroupSizeControl = VK_TRUE;
  sizeControlFeatures.computeFullSubgroups = VK_TRUE;
  if (sizeControl && !coopmat2) chain(sizeControlFeatures);
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  v11.pNext = &v12;
  v11.storageBuffer16BitAccess = m_info.storageBuffer16BitAccess;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &v11;

  VkDeviceCreateInfo createInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  createInfo.pNext = &features;
  createInfo.queueCreateInfoCount = 1;
  createInfo.pQueueCreateInfos = &queueInfo;
  createInfo.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  createInfo.ppEnabledExtensionNames = extensions.data();
  checkVk(vkCreateDevice(physical, &createInfo, nullptr, m_device.receive()), "vkCreateDevice");
  vkGetDeviceQueue(m_device.get(), m_queueFamily, 0, &m_queue);
  m_timestampValidBits = queueFamilyTimestampBits(physical, m_queueFamily);

  vkGetPhysicalDeviceMemoryProperties(physical, &m_memory);
  uint32_t largestLocalHeap = 0;
  for (uint32_t i = 1; i < m_memory.memoryHeapCount; ++i)
    if ((m_memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
        m_memory.memoryHeaps[i].size > m_memory.memoryHeaps[largestLocalHeap].size)
      largestLocalHeap = i;
  const VkMemoryPropertyFlags mappable =
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < m_memory.memoryTypeCount; ++i)
    if (m_memory.memoryTypes[i].heapIndex == largestLocalHeap &&
        (m_memory.memoryTypes[i].propertyFlags & mappable) == mappable)
      m_unifiedMemory = true;

  std::vector<char> cached = m_pipelineCachePath.empty() ? std::vector<char>{} : readFile(m_pipelineCachePath);
  VkPipelineCacheCreateInfo cacheInfo{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  cacheInfo.initialDataSize = cached.size();
  cacheInfo.pInitialData = cached.empty() ? nullptr : cached.data();
  // The driver validates the header (vendor, device, UUID) and ignores a stale or corrupt cache;
  // if it still refuses, start from an empty one.
  VkDevice dev = m_device.get();
  if (vkCreatePipelineCache(dev, &cacheInfo, nullptr, m_pipelineCache.receive(dev)) != VK_SUCCESS) {
    cacheInfo.initialDataSize = 0;
    cacheInfo.pInitialData = nullptr;
    checkVk(vkCreatePipelineCache(dev, &cacheInfo, nullptr, m_pipelineCache.receive(dev)), "vkCreatePipelineCache");
  }
  m_pipelineCacheLoaded = cacheInfo.initialDataSize > 0;
}

Device::~Device() {
  if (m_device.get() == VK_NULL_HANDLE) return;
  if (!m_compileOnly) vkDeviceWaitIdle(m_device.get());  // a compile-only device ran nothing
  try {
    savePipelineCache();
  } catch (...) {
    // A cache that cannot be written only costs compile time on the next run.
  }
  // The members free the pipeline cache, then the device.
}

void Device::savePipelineCache() const {
  if (m_pipelineCachePath.empty() || !m_pipelineCache) return;
  VkDevice dev = m_device.get();
  // What the file holds now joins this cache first: another Context (a thread of `vkattn warmup`,
  // another process) may have saved since this one read it, and its pipelines must not be lost.
  if (const std::vector<char> onDisk = readFile(m_pipelineCachePath); !onDisk.empty()) {
    VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    info.initialDataSize = onDisk.size();
    info.pInitialData = onDisk.data();
    PipelineCacheHandle saved;
    if (vkCreatePipelineCache(dev, &info, nullptr, saved.receive(dev)) == VK_SUCCESS) {
      const VkPipelineCache source = saved.get();
      vkMergePipelineCaches(dev, m_pipelineCache.get(), 1, &source);  // a failed merge only costs compile time
    }
  }
  size_t size = 0;
  if (vkGetPipelineCacheData(dev, m_pipelineCache.get(), &size, nullptr) != VK_SUCCESS || size == 0) return;
  std::vector<char> data(size);
  if (vkGetPipelineCacheData(dev, m_pipelineCache.get(), &size, data.data()) != VK_SUCCESS) return;
  std::error_code ec;
  std::filesystem::create_directories(m_pipelineCachePath.parent_path(), ec);
  // Write then rename, so concurrent processes never read a half-written file.
  auto tmp = m_pipelineCachePath;
  tmp += ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(this));
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return;
    out.write(data.data(), static_cast<std::streamsize>(size));
  }
  std::filesystem::rename(tmp, m_pipelineCachePath, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

void Device::markLost(const std::string& during) const {
  if (m_lost.load()) return;
  m_lostDuring = during;
  m_lost.store(true);
}

void Device::requireUsable() const {
  if (m_lost.load())
    throw DeviceLost(
        "the device " + m_info.name + " was lost during " + m_lostDuring + "; create a new vkattn::Context",
        VK_ERROR_DEVICE_LOST);
}

std::optional<uint32_t> Device::findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required,
                                               VkMemoryPropertyFlags preferred) const {
  std::optional<uint32_t> fallback;
  for (uint32_t i = 0; i < m_memory.memoryTypeCount; ++i) {
    if (!(typeBits & (1u << i))) continue;
    VkMemoryPropertyFlags flags = m_memory.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return i;
    if (!fallback) fallback = i;
  }
  return fallback;
}

}  // namespace vkattn
