// Device-dependent choices as pure functions over fake DeviceInfo values (cooperative-matrix
// flavour and subgroup size, readback through staging, subgroup operations a module needs, decode
// parallelism per vendor, the NaN-preserving execution mode added to modules), and
// what lavapipe makes of them: the portability extensions, the chosen queue's timestamp bits,
// direct reads from host-cached memory, a pipeline that requires a subgroup size.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "support/test_context.hpp"
#include "vkattn/core/buffer.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/device_parallelism.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/core/spirv_float_controls.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn {
namespace {

CooperativeMatrixShape f16Shape(CoopmatFlavour flavour, uint32_t m = 16, uint32_t n = 16, uint32_t k = 16) {
  return {m, n, k, "f16", "f16", "f32", "f32", flavour, true, false};
}

// A GPU with what the cooperative-matrix kernels need apart from the extensions.
DeviceInfo gpu() {
  DeviceInfo info;
  info.name = "fake GPU";
  info.kind = DeviceKind::Discrete;
  info.subgroupSize = info.minSubgroupSize = info.maxSubgroupSize = 32;
  info.subgroupOperations =
      VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_VOTE_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  info.shaderFloat16 = info.storageBuffer16BitAccess = info.vulkanMemoryModel = true;
  info.computeSubgroupSizeControl = true;
  return info;
}

DeviceInfo withNv(DeviceInfo info) {
  info.nvCooperativeMatrix = true;
  info.cooperativeMatrixShapes.push_back(f16Shape(CoopmatFlavour::Nv));
  return info;
}

DeviceInfo withKhr(DeviceInfo info) {
  info.khrCooperativeMatrix = true;
  info.cooperativeMatrixShapes.push_back(f16Shape(CoopmatFlavour::Khr));
  return info;
}

TEST(CoopmatChoice, NvOnlyDeviceGetsTheNvModule) {
  const CoopmatChoice c = chooseCoopmat(withNv(gpu()));
  EXPECT_EQ(c.flavour, CoopmatFlavour::Nv);
  EXPECT_EQ(c.subgroupSize, 32u);
  EXPECT_EQ(c.m * c.n * c.k, 16u * 16u * 16u);
  EXPECT_FALSE(c.requireSubgroupSize);
}

TEST(CoopmatChoice, KhrOnlyDeviceGetsTheKhrModule) {
  const CoopmatChoice c = chooseCoopmat(withKhr(gpu()));
  EXPECT_EQ(c.flavour, CoopmatFlavour::Khr);
  EXPECT_EQ(coopmatShader("matmul_coopmat", c.flavour), "matmul_coopmat_khr");
}

TEST(CoopmatChoice, BothPreferKhrAndARequestForcesEither) {
  const DeviceInfo both = withKhr(withNv(gpu()));
  EXPECT_EQ(chooseCoopmat(both).flavour, CoopmatFlavour::Khr);
  EXPECT_EQ(chooseCoopmat(both, CoopmatRequest::Khr).flavour, CoopmatFlavour::Khr);
  const CoopmatChoice nv = chooseCoopmat(both, CoopmatRequest::Nv);
  EXPECT_EQ(nv.flavour, CoopmatFlavour::Nv);
  EXPECT_EQ(coopmatShader("attention_coopmat", nv.flavour), "attention_coopmat");
  const CoopmatChoice off = chooseCoopmat(both, CoopmatRequest::Off);
  EXPECT_EQ(off.flavour, CoopmatFlavour::None);
  EXPECT_NE(off.reason.find("VKATTN_COOPMAT=off"), std::string::npos) << off.reason;
  const CoopmatChoice missing = chooseCoopmat(withKhr(gpu()), CoopmatRequest::Nv);
  EXPECT_EQ(missing.flavour, CoopmatFlavour::None);
  EXPECT_NE(missing.reason.find("VK_NV_cooperative_matrix"), std::string::npos) << missing.reason;
}

TEST(CoopmatChoice, NeitherExtensionMeansNone) {
  const CoopmatChoice c = chooseCoopmat(gpu());
  EXPECT_EQ(c.flavour, CoopmatFlavour::None);
  EXPECT_NE(c.reason.find("neither"), std::string::npos) << c.reason;
}

// Each vendor's shape list (and lavapipe's) gives the shape the kernels are then written against.
TEST(CoopmatChoice, TheLargestUsableKhrShapeOfEachVendor) {
  struct Vendor {
    const char* name;
    uint32_t subgroup;
    std::vector<std::array<uint32_t, 3>> shapes;
    std::array<uint32_t, 3> chosen;
  };
  const Vendor vendors[] = {{"NVIDIA", 32, {{16, 8, 16}, {16, 16, 16}, {16, 8, 8}}, {16, 16, 16}},
                            {"AMD RDNA3", 32, {{16, 16, 16}}, {16, 16, 16}},
                            {"Intel Xe2", 16, {{8, 16, 16}}, {8, 16, 16}},
                            {"lavapipe", 8, {{8, 8, 8}}, {8, 8, 8}}};
  for (const Vendor& v : vendors) {
    DeviceInfo info = gpu();
    info.subgroupSize = info.minSubgroupSize = info.maxSubgroupSize = v.subgroup;
    info.khrCooperativeMatrix = true;
    for (const auto& s : v.shapes)
      info.cooperativeMatrixShapes.push_back(f16Shape(CoopmatFlavour::Khr, s[0], s[1], s[2]));
    const CoopmatChoice c = chooseCoopmat(info);
    EXPECT_EQ(c.flavour, CoopmatFlavour::Khr) << v.name << ": " << c.reason;
    EXPECT_EQ((std::array<uint32_t, 3>{c.m, c.n, c.k}), v.chosen) << v.name;
    EXPECT_EQ(c.subgroupSize, v.subgroup) << v.name;
  }
}

TEST(CoopmatChoice, KhrWithoutAUsableF16ShapeMeansNone) {
  DeviceInfo info = gpu();
  info.khrCooperativeMatrix = true;
  info.cooperativeMatrixShapes = {f16Shape(CoopmatFlavour::Khr, 16, 4, 16), f16Shape(CoopmatFlavour::Khr, 64, 64, 64)};
  CooperativeMatrixShape workgroupScope = f16Shape(CoopmatFlavour::Khr);
  workgroupScope.subgroupScope = false;
  info.cooperativeMatrixShapes.push_back(workgroupScope);
  CooperativeMatrixShape f16Accumulator = f16Shape(CoopmatFlavour::Khr);
  f16Accumulator.cType = f16Accumulator.resultType = "f16";
  info.cooperativeMatrixShapes.push_back(f16Accumulator);
  const CoopmatChoice c = chooseCoopmat(info);
  EXPECT_EQ(c.flavour, CoopmatFlavour::None);
  EXPECT_NE(c.reason.find("no usable f16"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("16x4x16"), std::string::npos) << "the reason lists the shapes: " << c.reason;
  // An NV 16x16x16 shape does not stand in for a missing KHR one, but the NV module then runs.
  info.nvCooperativeMatrix = true;
  info.cooperativeMatrixShapes.push_back(f16Shape(CoopmatFlavour::Nv));
  const CoopmatChoice nv = chooseCoopmat(info);
  EXPECT_EQ(nv.flavour, CoopmatFlavour::Nv);
  EXPECT_FALSE(nv.reason.empty());
}

TEST(CoopmatChoice, NvModuleTakesOnly16x16x16) {
  DeviceInfo info = gpu();
  info.nvCooperativeMatrix = true;
  info.cooperativeMatrixShapes = {f16Shape(CoopmatFlavour::Nv, 8, 8, 8)};
  EXPECT_EQ(chooseCoopmat(info).flavour, CoopmatFlavour::None);
}

TEST(CoopmatChoice, VaryingSubgroupSizeNeedsSizeControl) {
  DeviceInfo info = withNv(gpu());
  info.minSubgroupSize = 16;
  info.maxSubgroupSize = 64;
  info.subgroupSize = 64;
  info.computeSubgroupSizeControl = false;
  EXPECT_EQ(chooseCoopmat(info).flavour, CoopmatFlavour::None);
  info.computeSubgroupSizeControl = true;
  const CoopmatChoice nv = chooseCoopmat(info);
  EXPECT_EQ(nv.flavour, CoopmatFlavour::Nv);
  EXPECT_TRUE(nv.requireSubgroupSize);
  EXPECT_EQ(nv.subgroupSize, 32u);
  info = withKhr(info);
  const CoopmatChoice c = chooseCoopmat(info);
  EXPECT_EQ(c.flavour, CoopmatFlavour::Khr);
  EXPECT_TRUE(c.requireSubgroupSize);
  EXPECT_EQ(c.subgroupSize, 32u);
}

// Where the subgroup size varies, the kernels run at 32 on NVIDIA (its matrix units' width), 64 on
// AMD (wave64: half the accumulator registers a lane), the fragment's N on Intel (Xe2's 8x16x16:
// 16; Xe-HPG's 8x8x16: 8), never Intel's 32.
TEST(CoopmatChoice, EachVendorRunsAtItsOwnWidth) {
  struct Case {
    uint32_t vendor;
    std::array<uint32_t, 3> shape;
    uint32_t subgroup;
  };
  const Case cases[] = {{kVendorIntel, {8, 16, 16}, 16},
                        {kVendorIntel, {8, 8, 16}, 8},
                        {kVendorAmd, {16, 16, 16}, 64},
                        {kVendorNvidia, {16, 16, 16}, 32}};
  for (const Case& c : cases) {
    DeviceInfo info = gpu();
    info.vendorId = c.vendor;
    info.int8DotMixedSignednessAccelerated = true;  // AMD: RDNA3
    info.minSubgroupSize = 8;
    info.maxSubgroupSize = 64;
    info.subgroupSize = 32;
    info.khrCooperativeMatrix = true;
    info.cooperativeMatrixShapes.push_back(f16Shape(CoopmatFlavour::Khr, c.shape[0], c.shape[1], c.shape[2]));
    const CoopmatChoice choice = chooseCoopmat(info);
    EXPECT_EQ(choice.flavour, CoopmatFlavour::Khr) << choice.reason;
    EXPECT_EQ(choice.subgroupSize, c.subgroup) << std::hex << c.vendor;
    EXPECT_TRUE(choice.requireSubgroupSize);
  }
}

// SPIR-V 1.5 allows the KHR instructions only in pipelines with full subgroups.
TEST(CoopmatChoice, KhrNeedsFullSubgroupsThroughSizeControl) {
  DeviceInfo info = withKhr(gpu());
  EXPECT_TRUE(chooseCoopmat(info).requireSubgroupSize) << "a fixed-size device requires it too";
  info.computeSubgroupSizeControl = false;
  const CoopmatChoice none = chooseCoopmat(info);
  EXPECT_EQ(none.flavour, CoopmatFlavour::None);
  EXPECT_NE(none.reason.find("subgroup size control"), std::string::npos) << none.reason;
  const CoopmatChoice nv = chooseCoopmat(withNv(info));
  EXPECT_EQ(nv.flavour, CoopmatFlavour::Nv);
  EXPECT_FALSE(nv.requireSubgroupSize);
}

// AMD GPUs have matrix units from RDNA3 on, which RADV marks (as AMD's own drivers do) by accelerating
// mixed-signedness 8-bit dot products; on older ones a driver's cooperative matrices are emulated.
DeviceInfo amd(bool rdna3) {
  DeviceInfo info = withKhr(gpu());
  info.name = rdna3 ? "AMD RDNA3" : "AMD RDNA2";
  info.vendorId = kVendorAmd;
  info.minSubgroupSize = 32;
  info.maxSubgroupSize = 64;
  info.subgroupSize = 64;
  info.int8DotAccelerated = true;
  info.int8DotMixedSignednessAccelerated = rdna3;
  return info;
}

TEST(CoopmatChoice, AmdMatrixUnitsFromRdna3On) {
  const CoopmatChoice rdna3 = chooseCoopmat(amd(true));
  EXPECT_EQ(rdna3.flavour, CoopmatFlavour::Khr) << rdna3.reason;
  EXPECT_EQ(rdna3.subgroupSize, 64u);
  const CoopmatChoice rdna2 = chooseCoopmat(amd(false));
  EXPECT_EQ(rdna2.flavour, CoopmatFlavour::None);
  EXPECT_NE(rdna2.reason.find("before RDNA3"), std::string::npos) << rdna2.reason;
  EXPECT_NE(rdna2.reason.find("VKATTN_COOPMAT"), std::string::npos) << "names the override: " << rdna2.reason;
  EXPECT_EQ(chooseCoopmat(withNv(amd(false))).flavour, CoopmatFlavour::None) << "NV's extension alike";
  // Asked for by name, the emulated matrices are used.
  EXPECT_EQ(chooseCoopmat(amd(false), CoopmatRequest::Khr).flavour, CoopmatFlavour::Khr);
  // The mark is AMD's alone: another vendor without it keeps its matrices.
  DeviceInfo other = amd(false);
  other.vendorId = kVendorNvidia;
  EXPECT_EQ(chooseCoopmat(other).flavour, CoopmatFlavour::Khr);
}

TEST(CoopmatChoice, MissingFp16OrMemoryModelMeansNone) {
  DeviceInfo info = withNv(gpu());
  info.vulkanMemoryModel = false;
  EXPECT_EQ(chooseCoopmat(info).flavour, CoopmatFlavour::None);
  info = withNv(gpu());
  info.storageBuffer16BitAccess = false;
  EXPECT_EQ(chooseCoopmat(info).flavour, CoopmatFlavour::None);
}

// VK_NV_cooperative_matrix2 on top of KHR: what lavapipe 26 and NVIDIA report, and each missing piece
// refused by name.
DeviceInfo withCoopmat2(DeviceInfo info, uint32_t granularity = 16) {
  info = withKhr(std::move(info));
  info.apiVersion = VK_API_VERSION_1_3;
  info.maintenance4 = true;
  info.nvCooperativeMatrix2 = true;
  info.cooperativeMatrix2.flexibleDimensions = info.cooperativeMatrix2.reductions = true;
  info.cooperativeMatrix2.conversions = info.cooperativeMatrix2.perElementOperations = true;
  info.flexibleMaxDimension = 256;
  info.flexibleShapes = {f16Shape(CoopmatFlavour::Khr, granularity, granularity, granularity)};
  return info;
}

TEST(Coopmat2Choice, FlexibleShapesGiveRowsAndPadding) {
  DeviceInfo lavapipe = withCoopmat2(gpu(), 8);
  lavapipe.kind = DeviceKind::Cpu;
  lavapipe.subgroupSize = lavapipe.minSubgroupSize = lavapipe.maxSubgroupSize = 8;
  const Coopmat2Choice c = chooseCoopmat2(lavapipe);
  ASSERT_TRUE(c.usable) << c.reason;
  EXPECT_EQ(c.rows, 8u);
  EXPECT_EQ(c.pad, 8u);
  EXPECT_EQ(c.subgroupSize, 8u);
  EXPECT_EQ(c.maxDimension, 256u);
  DeviceInfo varying = withCoopmat2(gpu());
  varying.minSubgroupSize = 16;
  varying.maxSubgroupSize = 64;
  const Coopmat2Choice v = chooseCoopmat2(varying);
  ASSERT_TRUE(v.usable) << v.reason;
  EXPECT_EQ(v.rows, 16u);
  EXPECT_EQ(v.subgroupSize, 32u);
  // A coarse shape beside a fine one: the least padding wins.
  DeviceInfo two = withCoopmat2(gpu());
  two.flexibleShapes.push_back(f16Shape(CoopmatFlavour::Khr, 16, 8, 8));
  EXPECT_EQ(chooseCoopmat2(two).pad, 8u);
  EXPECT_NE(describe(c).find("NV2"), std::string::npos);
}

TEST(Coopmat2Choice, AmdBeforeRdna3IsEmulated) {
  DeviceInfo info = withCoopmat2(gpu());
  info.vendorId = kVendorAmd;
  EXPECT_FALSE(chooseCoopmat2(info).usable);
  EXPECT_NE(chooseCoopmat2(info).reason.find("before RDNA3"), std::string::npos);
  EXPECT_TRUE(chooseCoopmat2(info, CoopmatRequest::Nv).usable);
  info.int8DotMixedSignednessAccelerated = true;
  EXPECT_TRUE(chooseCoopmat2(info).usable) << chooseCoopmat2(info).reason;
}

TEST(Coopmat2Choice, MissingPiecesAreNamed) {
  auto reasonWith = [](auto change) {
    DeviceInfo info = withCoopmat2(gpu());
    change(info);
    const Coopmat2Choice c = chooseCoopmat2(info);
    EXPECT_FALSE(c.usable);
    return c.reason;
  };
  EXPECT_NE(reasonWith([](DeviceInfo& i) { i.nvCooperativeMatrix2 = false; }).find("VK_NV_cooperative_matrix2"),
            std::string::npos);
  EXPECT_NE(reasonWith([](DeviceInfo& i) { i.cooperativeMatrix2.reductions = false; }).find("reductions"),
            std::string::npos);
  EXPECT_NE(reasonWith([](DeviceInfo& i) { i.khrCooperativeMatrix = false; }).find("VK_KHR_cooperative_matrix"),
            std::string::npos);
  EXPECT_NE(reasonWith([](DeviceInfo& i) { i.apiVersion = VK_API_VERSION_1_2; }).find("SPIR-V 1.6"), std::string::npos);
  EXPECT_NE(reasonWith([](DeviceInfo& i) { i.maintenance4 = false; }).find("maintenance4"), std::string::npos);
  EXPECT_NE(reasonWith([](DeviceInfo& i) { i.flexibleShapes[0].cType = "f16"; }).find("flexible"), std::string::npos);
  EXPECT_NE(reasonWith([](DeviceInfo& i) { i.flexibleShapes[0].m = 64; }).find("granularities"), std::string::npos);
  EXPECT_NE(reasonWith([](DeviceInfo& i) { i.computeSubgroupSizeControl = false; }).find("subgroup size control"),
            std::string::npos);
  const Coopmat2Choice off = chooseCoopmat2(withCoopmat2(gpu()), CoopmatRequest::Off);
  EXPECT_FALSE(off.usable);
  EXPECT_NE(off.reason.find("VKATTN_COOPMAT=off"), std::string::npos);
}
// The workgroup-scope twin needs what the subgroup kernel needs, workgroup scope and tensor
// addressing, and a workgroup-scope flexible shape (its granularities, not the subgroup shape's).
TEST(Coopmat2Choice, WorkgroupScopeNeedsItsFeaturesAndShape) {
  DeviceInfo info = withCoopmat2(gpu());
  EXPECT_NE(chooseCoopmat2Workgroup(info).reason.find("workgroup scope or tensor addressing"), std::string::npos);
  info.cooperativeMatrix2.workgroupScope = info.cooperativeMatrix2.tensorAddressing = true;
  info.workgroupScopeMaxWorkgroupSize = 256;
  EXPECT_NE(chooseCoopmat2Workgroup(info).reason.find("workgroup-scope shape"), std::string::npos);
  CooperativeMatrixShape shape = f16Shape(CoopmatFlavour::Khr, 32, 16, 16);
  shape.subgroupScope = false;
  info.flexibleShapes.push_back(shape);
  const Coopmat2WorkgroupChoice c = chooseCoopmat2Workgroup(info);
  ASSERT_TRUE(c.usable) << c.reason;
  EXPECT_EQ(c.rows, 32u);
  EXPECT_EQ(c.pad, 16u);
  EXPECT_EQ(c.maxWorkgroup, 256u);
  EXPECT_NE(describe(c).find("workgroup scope"), std::string::npos);
  info.nvCooperativeMatrix2 = false;  // the subgroup kernel's own requirements come first
  EXPECT_NE(chooseCoopmat2Workgroup(info).reason.find("VK_NV_cooperative_matrix2"), std::string::npos);
  EXPECT_FALSE(chooseCoopmat2Workgroup(withCoopmat2(gpu()), CoopmatRequest::Off).usable);
}

TEST(Readback, ThroughStagingOnlyForUncachedVramOfDiscreteGpus) {
  constexpr VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  constexpr VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  constexpr VkMemoryPropertyFlags cached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  EXPECT_TRUE(readsThroughStaging(local, true, true)) << "unmapped VRAM";
  EXPECT_TRUE(readsThroughStaging(local, false, false)) << "unmapped memory of any device";
  EXPECT_TRUE(readsThroughStaging(local | visible, true, true)) << "resizable BAR";
  EXPECT_FALSE(readsThroughStaging(local | visible, true, false)) << "no cached memory to stage through";
  EXPECT_FALSE(readsThroughStaging(local | visible, false, true)) << "integrated GPU or CPU driver";
  EXPECT_FALSE(readsThroughStaging(local | visible | cached, true, true)) << "cached device-local memory";
  EXPECT_FALSE(readsThroughStaging(visible | cached, true, true)) << "system memory";
}

TEST(SubgroupOperations, ReadFromEachModulesCapabilities) {
  EXPECT_EQ(subgroupOperationsNeeded(shaderCode("copy")), 0u);
  const uint32_t softmax = subgroupOperationsNeeded(shaderCode("softmax_f32"));
  EXPECT_TRUE(softmax & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  EXPECT_TRUE(softmax & VK_SUBGROUP_FEATURE_VOTE_BIT);
  EXPECT_TRUE(subgroupOperationsNeeded(shaderCode("matmul_rows_shuffle_f32")) & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);
  EXPECT_FALSE(subgroupOperationsNeeded(shaderCode("matmul_rows_f32")) & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);
}

using test::VkattnTest;

TEST_F(VkattnTest, InstanceEnablesPortabilityEnumerationWhereTheLoaderOffersIt) {
  uint32_t count = 0;
  vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateInstanceExtensionProperties(nullptr, &count, extensions.data());
  bool offered = false;
  for (const auto& e : extensions)
    offered = offered || std::string(e.extensionName) == "VK_KHR_portability_enumeration";
  EXPECT_EQ(ctx().device().instance().portabilityEnumeration(), offered);
}

TEST_F(VkattnTest, TimestampsComeFromTheChosenQueueFamily) {
  const Device& device = ctx().device();
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device.physical(), &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(device.physical(), &count, families.data());
  ASSERT_LT(device.queueFamily(), count);
  EXPECT_EQ(device.timestampValidBits(), families[device.queueFamily()].timestampValidBits);
  EXPECT_EQ(ctx().info().timestampValidBits, device.timestampValidBits()) << "default queue, no extra flags";
}

TEST_F(VkattnTest, StorageBuffersReadBackExactly) {
  const Device& device = ctx().device();
  Buffer buffer(device, 4096);
  std::vector<uint32_t> values(1024);
  for (uint32_t i = 0; i < values.size(); ++i) values[i] = i * 2654435761u;
  buffer.write(values.data(), values.size() * 4);
  std::vector<uint32_t> back(values.size(), 0);
  buffer.read(back.data(), back.size() * 4);
  EXPECT_EQ(back, values);
  if (ctx().info().kind == DeviceKind::Cpu) {
    // lavapipe: one host-visible heap, read directly from the mapping.
    EXPECT_NE(buffer.mapped(), nullptr);
    EXPECT_FALSE(readsThroughStaging(buffer.memoryFlags(), false, true));
  }
}

TEST_F(VkattnTest, PipelinesRequireASubgroupSizeWithFullSubgroups) {
  const DeviceInfo& info = ctx().info();
  if (!info.computeSubgroupSizeControl) GTEST_SKIP() << info.name << " has no compute subgroup size control";
  SpecConstants constants;
  constants.set(0u, uint32_t{4} * info.subgroupSize);  // copy.comp's workgroup: whole subgroups
  PipelineDesc desc{"copy", 2, 4, constants, info.subgroupSize};
  Pipeline pipeline(ctx().device(), desc);  // the fixture fails on any validation message
  EXPECT_NE(pipeline.handle(), VK_NULL_HANDLE);
}

TEST(DecodeParallelism, SplitKFillsFourWorkgroupsPerReportedComputeUnit) {
  DeviceInfo h100 = gpu();
  h100.computeUnits = 132;
  h100.computeUnitsSource = "SMs, VK_NV_shader_sm_builtins";
  EXPECT_EQ(busyWorkgroups(h100), 528u);
  EXPECT_EQ(computeUnitsSource(h100), "SMs, VK_NV_shader_sm_builtins");
  EXPECT_EQ(minKeysPerSplit(h100), 256u);
  DeviceInfo unknown = gpu();  // no vendor extension: a modest discrete GPU is assumed
  EXPECT_EQ(busyWorkgroups(unknown), 4 * kAssumedDiscreteComputeUnits);
  EXPECT_NE(computeUnitsSource(unknown).find("assumed"), std::string::npos);
  unknown.kind = DeviceKind::Integrated;
  EXPECT_EQ(busyWorkgroups(unknown), 4 * kAssumedIntegratedComputeUnits);
  DeviceInfo cpu = gpu();
  cpu.kind = DeviceKind::Cpu;
  EXPECT_EQ(busyWorkgroups(cpu), 32u);
  EXPECT_EQ(minKeysPerSplit(cpu), 1024u);
}

// A GPU with subgroup arithmetic, which the lane-split decode merges with.
DeviceInfo decodeGpu() {
  DeviceInfo info = gpu();
  info.subgroupArithmetic = true;
  return info;
}

TEST(DecodeParallelism, LaneSplitNeedsAKnownSubgroupSize) {
  DeviceInfo nv = decodeGpu();  // fixed 32
  EXPECT_EQ(laneSplitSubgroup(nv).size, 32u);
  EXPECT_FALSE(laneSplitSubgroup(nv).required);
  DeviceInfo amd = decodeGpu();  // RDNA: 32..64, required through subgroup size control
  amd.subgroupSize = 64;
  amd.minSubgroupSize = 32;
  amd.maxSubgroupSize = 64;
  amd.computeSubgroupSizeControl = true;
  EXPECT_EQ(laneSplitSubgroup(amd).size, 32u);
  EXPECT_TRUE(laneSplitSubgroup(amd).required);
  DeviceInfo intel = amd;  // 8..16
  intel.minSubgroupSize = 8;
  intel.maxSubgroupSize = 16;
  EXPECT_EQ(laneSplitSubgroup(intel).size, 16u);
  EXPECT_TRUE(laneSplitSubgroup(intel).required);
  intel.vendorId = kVendorIntel;  // Arc: 8..32, and 16 chosen (at 32 the decode lanes would spill)
  intel.maxSubgroupSize = 32;
  EXPECT_EQ(laneSplitSubgroup(intel).size, 16u);
  intel.vendorId = 0;  // another vendor with the same range takes 32
  EXPECT_EQ(laneSplitSubgroup(intel).size, 32u);
  amd.computeSubgroupSizeControl = false;  // varies, cannot be required: one lane per row
  EXPECT_EQ(laneSplitSubgroup(amd).size, 0u);
  nv.subgroupArithmetic = false;
  nv.subgroupOperations = VK_SUBGROUP_FEATURE_BASIC_BIT;
  EXPECT_EQ(laneSplitSubgroup(nv).size, 0u);
  DeviceInfo wide = decodeGpu();
  wide.subgroupSize = wide.minSubgroupSize = wide.maxSubgroupSize = 128;
  EXPECT_EQ(laneSplitSubgroup(wide).size, 0u);
}

TEST_F(VkattnTest, ThisDeviceReportsItsParallelism) {
  const DeviceInfo& info = ctx().info();
  EXPECT_GT(computeUnitsFor(info), 0u);
  EXPECT_FALSE(computeUnitsSource(info).empty());
  EXPECT_EQ(busyWorkgroups(info), info.kind == DeviceKind::Cpu ? 32u : 4 * computeUnitsFor(info));
}

// Instructions of a module as (opcode, operands) pairs, for looking up what the patch added.
std::vector<std::vector<uint32_t>> instructionsOf(const std::vector<uint32_t>& code, uint32_t op) {
  std::vector<std::vector<uint32_t>> found;
  for (std::size_t at = 5; at < code.size(); at += code[at] >> 16)
    if ((code[at] & 0xffffu) == op) found.emplace_back(code.begin() + at + 1, code.begin() + at + (code[at] >> 16));
  return found;
}

constexpr uint32_t kOpExtension = 10, kOpEntryPoint = 15, kOpExecutionMode = 16, kOpCapability = 17;

// The widths SignedZeroInfNanPreserve is declared for, and how often the capability is.
std::pair<std::vector<uint32_t>, int> preserved(const std::vector<uint32_t>& code) {
  std::vector<uint32_t> widths;
  for (const auto& mode : instructionsOf(code, kOpExecutionMode))
    if (mode[1] == 4461) widths.push_back(mode[2]);
  int capabilities = 0;
  for (const auto& cap : instructionsOf(code, kOpCapability)) capabilities += cap[0] == 4466;
  return {widths, capabilities};
}

TEST(NanPreserve, DeclaredForTheFloatWidthsAModuleUses) {
  const auto f32 = shaderCode("softmax_f32"), f16 = shaderCode("softmax_f16");
  const std::vector<uint32_t> original(f32.begin(), f32.end());
  const std::vector<uint32_t> patched = withNanPreserve(f32, true, true);
  EXPECT_EQ(preserved(patched), std::make_pair(std::vector<uint32_t>{32}, 1));
  EXPECT_EQ(patched.size(), original.size() + 2 + 4);  // the capability and one execution mode
  const auto entry = instructionsOf(patched, kOpEntryPoint);
  ASSERT_EQ(entry.size(), 1u);
  bool onMain = false;
  for (const auto& mode : instructionsOf(patched, kOpExecutionMode))
    onMain = onMain || (mode[0] == entry[0][1] && mode[1] == 4461);
  EXPECT_TRUE(onMain);
  EXPECT_EQ(withNanPreserve(patched, true, true), patched);  // idempotent
  EXPECT_EQ(withNanPreserve(f32, false, false), original);   // the device preserves nothing
  EXPECT_EQ(preserved(withNanPreserve(f16, true, true)), std::make_pair(std::vector<uint32_t>{16, 32}, 1));
  EXPECT_EQ(preserved(withNanPreserve(f16, false, true)), std::make_pair(std::vector<uint32_t>{32}, 1));
  EXPECT_THROW(withNanPreserve(std::vector<uint32_t>{1, 2, 3}, true, true), Error);
}

TEST(NanPreserve, AddsTheExtensionBeforeSpirv14) {
  const auto code = shaderCode("softmax_f32");
  std::vector<uint32_t> old(code.begin(), code.end());
  old[1] = 0x00010300;
  const std::vector<uint32_t> patched = withNanPreserve(old, false, true);
  bool found = false;
  for (const auto& ext : instructionsOf(patched, kOpExtension))
    found = found || std::string(reinterpret_cast<const char*>(ext.data())) == "SPV_KHR_float_controls";
  EXPECT_TRUE(found);
  EXPECT_TRUE(instructionsOf(withNanPreserve(code, false, true), kOpExtension).size() ==
              instructionsOf(old, kOpExtension).size());  // SPIR-V 1.5: core, no extension
}

// Auto on a GPU: the fragment kernels for f16 where the matrix units are usable (Mesa 26's
// lavapipe under the GPU profile), the tiled ones otherwise and for f32; each result checked
// against the naive path.
using CoopmatAuto = VkattnTest;

TEST_F(CoopmatAuto, GpusWithMatrixUnitsPreferThem) {
  Context gpu({.profile = KernelProfile::Gpu});
  const bool units = gpu.info().cooperativeMatrixF16;
  const std::string coopmat = coopmatShader("attention_coopmat", coopmatChoiceFor(gpu.info()).flavour) + "_f16";
  const std::string matmulCoopmat = coopmatShader("matmul_coopmat", coopmatChoiceFor(gpu.info()).flavour) + "_f16";
  auto values = [](std::size_t n, uint64_t seed) { return reference::roundToHalf(reference::randomValues(n, seed)); };
  Tensor q = gpu.tensor({1, 2, 40, 64}, values(2 * 40 * 64, 1), DType::F16);
  Tensor k = gpu.tensor({1, 2, 50, 64}, values(2 * 50 * 64, 2), DType::F16);
  Tensor v = gpu.tensor({1, 2, 50, 64}, values(2 * 50 * 64, 3), DType::F16);
  const std::vector<float> out = attention(gpu, q, k, v).download();
  const std::vector<float> naive = attentionNaive(gpu, q, k, v).download();
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], naive[i], 4e-3) << i;
  EXPECT_EQ(gpu.pipelines().built(coopmat), units);
  EXPECT_EQ(gpu.pipelines().built("attention_tiled_f16"), !units);
  Tensor a = gpu.tensor({33, 64}, values(33 * 64, 4), DType::F16),
         w = gpu.tensor({48, 64}, values(48 * 64, 5), DType::F16);
  const std::vector<float> y = linear(gpu, a, w).download();
  const std::vector<float> yNaive = linear(gpu, a, w, {.variant = MatmulVariant::Naive}).download();
  for (std::size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], yNaive[i], 2e-2) << i;
  EXPECT_EQ(gpu.pipelines().built(matmulCoopmat), units);
  // f32 stays on the tiled kernels.
  Tensor q32 = gpu.tensor({1, 1, 20, 32}, reference::randomValues(20 * 32, 6));
  Tensor k32 = gpu.tensor({1, 1, 20, 32}, reference::randomValues(20 * 32, 7));
  attention(gpu, q32, k32, k32);
  EXPECT_TRUE(gpu.pipelines().built("attention_tiled_f32"));
}

}  // namespace

}  // namespace vkattn
