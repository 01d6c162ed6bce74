#include "vkattn/core/context.hpp"

#include <cstdlib>
#include <cstring>

#include "vkattn/core/checked_size.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/device_selection.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

// The device half of ContextOptions' presentation requests; the filter sees the instance too.
DeviceOptions deviceOptionsFor(const ContextOptions& options, VkInstance instance) {
  DeviceOptions device;
  device.extensions = options.deviceExtensions;
  device.queueFlags = options.queueFlags;
  device.compileOnly = options.compileOnly;
  if (options.queueFamilyFilter)
    device.queueFamilyFilter = [filter = options.queueFamilyFilter, instance](VkPhysicalDevice physical,
                                                                              uint32_t family) {
      return filter(instance, physical, family);
    };
  return device;
}

// What the driver reports, and whether the cooperative-matrix kernels can run there (the choice
// sits above the query: it reads the whole DeviceInfo).
DeviceInfo describeDevice(VkInstance instance, VkPhysicalDevice physical, uint32_t index) {
  DeviceInfo info = queryDeviceInfo(instance, physical, index);
  info.cooperativeMatrixF16 = coopmatChoiceFor(info).flavour != CoopmatFlavour::None;
  return info;
}

}  // namespace

std::optional<KernelProfile> profileFromEnvironment() {
  const char* value = std::getenv("VKATTN_PROFILE");
  if (!value || !*value) return std::nullopt;
  if (std::strcmp(value, "cpu") == 0) return KernelProfile::CpuDriver;
  if (std::strcmp(value, "gpu") == 0) return KernelProfile::Gpu;
  throw InvalidArgument("VKATTN_PROFILE", std::string("expected 'cpu' or 'gpu', got '") + value + "'");
}

std::vector<DeviceInfo> Context::listDevices() {
  InstanceOptions options;  // no validation needed to read properties
  Instance instance(options);
  std::vector<DeviceInfo> infos;
  auto physical = instance.physicalDevices();
  for (uint32_t i = 0; i < physical.size(); ++i) infos.push_back(describeDevice(instance.handle(), physical[i], i));
  return infos;
}

Context::Context(const ContextOptions& options) {
  InstanceOptions instanceOptions = InstanceOptions::fromEnvironment();
  if (options.validation) instanceOptions.validation = *options.validation;
  instanceOptions.extensions = options.instanceExtensions;
  m_ownedInstance = std::make_unique<Instance>(instanceOptions);
  m_instance = m_ownedInstance.get();

  auto physical = m_instance->physicalDevices();
  std::vector<DeviceInfo> infos;
  for (uint32_t i = 0; i < physical.size(); ++i) infos.push_back(describeDevice(m_instance->handle(), physical[i], i));
  auto chosen = chooseDevice(infos, options.device ? options.device : deviceOverrideFromEnvironment());

  std::filesystem::path cachePath =
      options.pipelineCache ? *options.pipelineCache : defaultPipelineCachePath(infos[chosen]);
  m_ownedDevice = std::make_unique<Device>(*m_instance, physical[chosen], infos[chosen], cachePath,
                                           deviceOptionsFor(options, m_instance->handle()));
  m_device = m_ownedDevice.get();
  m_profile = options.profile ? *options.profile : profileFromEnvironment().value_or(m_device->info().defaultProfile());
  m_pipelines = std::make_unique<PipelineLibrary>(*m_device);
  m_recorder = std::make_unique<Recorder>(*m_device);
}

Context::Context(SharedDevice shared)
    : m_instance(shared.owner.m_instance), m_device(shared.owner.m_device), m_profile(shared.owner.m_profile) {
  m_pipelines = std::make_unique<PipelineLibrary>(*m_device);
  m_recorder = std::make_unique<Recorder>(*m_device);
}

Context::~Context() {
  // Children first: recorder and pipelines borrow the device, the device borrows the instance.
  m_recorder.reset();
  m_pipelines.reset();
  m_ownedDevice.reset();
  m_ownedInstance.reset();
}

TensorView Context::scratch(Shape shape, DType dtype) {
  for (int64_t d : shape)
    if (d <= 0) throw InvalidArgument("shape", "dimensions must be positive, got " + toString(shape));
  const std::size_t bytes = checkedByteCount(shape, dtype, "shape");
  const Buffer& buffer = m_recorder->scratch(bytes, "a scratch tensor");
  Shape strides = contiguousStrides(shape);
  return TensorView{&buffer, dtype, std::move(shape), std::move(strides), 0};
}

void Context::flush() {
  if (m_batchDepth == 0) m_recorder->submit();
}

Batch::Batch(Context& context) : m_context(context) {
  ++m_context.m_batchDepth;
}

Batch::~Batch() {
  if (!m_open) return;
  if (--m_context.m_batchDepth == 0) m_context.recorder().discard();
}

void Batch::submit() {
  if (!m_open) return;
  m_open = false;
  if (--m_context.m_batchDepth == 0) m_context.recorder().submit();
}

}  // namespace vkattn
