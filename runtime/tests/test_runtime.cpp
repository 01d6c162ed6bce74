// The runtime's own pieces: device choice, pipeline cache persistence, batches
// with GPU timestamps, the storage buffer limit, and the shader registry.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "support/compare.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/device_selection.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/instance.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/core/timing.hpp"
#include "vkattn/ops/row_ops.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

DeviceInfo fakeDevice(const std::string& name, DeviceKind kind) {
  DeviceInfo d;
  d.name = name;
  d.kind = kind;
  return d;
}

TEST(DeviceSelection, PrefersDiscreteThenIntegratedThenVirtualThenCpu) {
  std::vector<DeviceInfo> devices = {fakeDevice("llvmpipe", DeviceKind::Cpu), fakeDevice("virgl", DeviceKind::Virtual),
                                     fakeDevice("Intel UHD", DeviceKind::Integrated),
                                     fakeDevice("NVIDIA H100", DeviceKind::Discrete)};
  EXPECT_EQ(chooseDevice(devices, std::nullopt), 3u);
  devices.pop_back();
  EXPECT_EQ(chooseDevice(devices, std::nullopt), 2u);
  devices.pop_back();
  EXPECT_EQ(chooseDevice(devices, std::nullopt), 1u);
  devices.pop_back();
  EXPECT_EQ(chooseDevice(devices, std::nullopt), 0u);
}

TEST(DeviceSelection, OverrideByIndexOrNameSubstring) {
  std::vector<DeviceInfo> devices = {fakeDevice("NVIDIA H100", DeviceKind::Discrete),
                                     fakeDevice("llvmpipe (LLVM 15)", DeviceKind::Cpu)};
  EXPECT_EQ(chooseDevice(devices, std::string("1")), 1u);
  EXPECT_EQ(chooseDevice(devices, std::string("LLVMPIPE")), 1u);
  EXPECT_EQ(chooseDevice(devices, std::string("h100")), 0u);
  EXPECT_THROW(chooseDevice(devices, std::string("7")), InvalidArgument);
  try {
    chooseDevice(devices, std::string("radeon"));
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "device");
    EXPECT_NE(std::string(e.what()).find("llvmpipe"), std::string::npos) << "the message lists the devices";
  }
  EXPECT_THROW(chooseDevice({}, std::nullopt), Unsupported);
}

TEST(ShaderRegistry, HoldsEveryKernelAndRejectsUnknownNames) {
  auto names = shaderNames();
  for (const char* expected : {"copy", "softmax_f32", "softmax_f16", "layer_norm_f32", "rms_norm_f16", "rope_f32"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  for (const auto& name : names) {
    auto code = shaderCode(name);
    ASSERT_GT(code.size(), 5u);
    EXPECT_EQ(code[0], 0x07230203u) << name << " does not start with the SPIR-V magic number";
  }
  EXPECT_THROW(shaderCode("no_such_kernel"), Error);
}

TEST_F(VkattnTest, BatchRunsOpsTogetherAndTimesThem) {
  auto x = randomValues(64 * 128, 3);
  Tensor tx = ctx().tensor({64, 128}, x), a = ctx().tensor({64, 128}), b = ctx().tensor({64, 128});
  Batch batch(ctx());
  uint32_t t0 = batch.timestamp();
  softmax(ctx(), tx, a);
  rmsNorm(ctx(), a, b);  // reads what softmax wrote: the recorder's barrier orders them
  uint32_t t1 = batch.timestamp();
  batch.submit();
  EXPECT_GT(batch.elapsedNs(t0, t1), 0.0);
  auto sm = softmaxRef(x, 128, 1.0, nullptr, {});
  std::vector<float> smf(sm.begin(), sm.end());
  EXPECT_TRUE(allClose(b.download(), rmsNormRef(smf, 128, nullptr, 1e-6), 1e-4, 1e-4));
}

// The host's time waiting for the device grows with each submission that is waited for, by no more
// than the wall time around it.
TEST_F(VkattnTest, DeviceCountsTheHostsWaits) {
  Tensor x = ctx().tensor({256, 1024}, randomValues(256 * 1024, 4)), y = ctx().tensor({256, 1024});
  const uint64_t before = ctx().device().waitedNs();
  const auto start = std::chrono::steady_clock::now();
  softmax(ctx(), x, y);  // submits and waits
  const auto wall = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
  const uint64_t waited = ctx().device().waitedNs() - before;
  EXPECT_GT(waited, 0u);
  EXPECT_LE(waited, static_cast<uint64_t>(wall.count()));
}

TEST(CompileOnly, OpsCompileTheirPipelinesAndRunNothing) {
  // What `vkattn devices --pipelines` relies on where nothing can execute (RADV's null device):
  // ops check their arguments and build the pipeline they would run; no data moves.
  Context ctx({.profile = KernelProfile::Gpu, .pipelineCache = std::filesystem::path(), .compileOnly = true});
  EXPECT_TRUE(ctx.device().compileOnly());
  Tensor x = ctx.tensor({64, 128}, randomValues(64 * 128, 3)), y = ctx.tensor({64, 128});
  softmax(ctx, x, y);
  rmsNorm(ctx, x, y);
  EXPECT_TRUE(ctx.pipelines().built("softmax_f32"));
  EXPECT_TRUE(ctx.pipelines().built("rms_norm_f32"));
  EXPECT_THROW(y.download(), Unsupported);
  EXPECT_THROW(timeOnDevice(ctx, [&] { softmax(ctx, x, y); }), Unsupported);
  try {  // arguments are still checked, by name
    softmax(ctx, x, ctx.tensor({64, 127}));
    ADD_FAILURE() << "a mismatched output was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "y") << e.what();
  }
}

TEST_F(VkattnTest, DroppedBatchRunsNothing) {
  std::vector<float> zeros(16, 0.0f);
  Tensor tx = ctx().tensor({2, 8}, randomValues(16, 9)), y = ctx().tensor({2, 8}, zeros);
  {
    Batch batch(ctx());
    softmax(ctx(), tx, y);
  }  // not submitted
  for (float v : y.download()) EXPECT_EQ(v, 0.0f);
  softmax(ctx(), tx, y);  // the context is usable afterwards
  for (float v : y.download()) EXPECT_GT(v, 0.0f);
}

TEST_F(VkattnTest, TensorsBeyondTheStorageBufferLimitAreRejected) {
  const uint64_t limit = ctx().info().maxStorageBufferRange;
  if (limit >= (uint64_t{1} << 31)) GTEST_SKIP() << "device limit too large to exceed cheaply";
  const int64_t cols = 1024;
  const int64_t rows = static_cast<int64_t>(limit / (cols * 4)) + 1;
  Tensor big = ctx().tensor({rows, cols});
  try {
    softmax(ctx(), big, big);
    FAIL() << "no exception";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("maxStorageBufferRange"), std::string::npos) << e.what();
  }
}

// The counters that make validation messages fail tests, the CLI and the Python module: a
// deliberately invalid call (a zero-sized buffer) on a context of its own must be counted, by its
// instance and process-wide. The layer rejects the call before it reaches the driver.
TEST_F(VkattnTest, CopyRegionsMovesEachRangeAndRefusesOverruns) {
  const std::vector<int32_t> source = {1, 2, 3, 4, 5, 6};
  Tensor from = Tensor::fromHostInt(ctx().device(), {6}, source);
  Tensor to = Tensor::fromHostInt(ctx().device(), {8}, std::vector<int32_t>(8, 0));
  const std::vector<VkBufferCopy> regions = {{0, 28, 4}, {8, 0, 12}};  // element 0 -> 7, elements 2..4 -> 0..2
  copyRegions(ctx().device(), from.buffer(), to.buffer(), regions);
  EXPECT_EQ(to.downloadInt(), (std::vector<int32_t>{3, 4, 5, 0, 0, 0, 0, 1}));
  const VkBufferCopy past{20, 0, 8};  // 4 bytes beyond `from`
  EXPECT_THROW(copyRegions(ctx().device(), from.buffer(), to.buffer(), {&past, 1}), InvalidArgument);
  const VkBufferCopy empty{0, 0, 0};
  EXPECT_THROW(copyRegions(ctx().device(), from.buffer(), to.buffer(), {&empty, 1}), InvalidArgument);
  EXPECT_THROW(copyRegions(ctx().device(), from.buffer(), from.buffer(), regions), InvalidArgument);
  EXPECT_EQ(to.downloadInt(), (std::vector<int32_t>{3, 4, 5, 0, 0, 0, 0, 1}));  // nothing written by a refusal
}

TEST(Validation, MessagesAreCountedPerInstanceAndPerProcess) {
  Context ctx({.validation = true, .pipelineCache = std::filesystem::path()});
  if (!ctx.instance().validationEnabled()) GTEST_SKIP() << "VK_LAYER_KHRONOS_validation is not installed";
  const std::size_t processBefore = Instance::processValidationMessageCount();
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 0;  // VUID-VkBufferCreateInfo-size-00912
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  const VkResult result = vkCreateBuffer(ctx.device().handle(), &info, nullptr, &buffer);
  if (result == VK_SUCCESS) vkDestroyBuffer(ctx.device().handle(), buffer, nullptr);
  EXPECT_GE(ctx.instance().validationMessageCount(), 1u);
  EXPECT_GE(Instance::processValidationMessageCount(), processBefore + 1);
}

TEST(PipelineCache, IsWrittenAndReusedAcrossContexts) {
  auto path = std::filesystem::temp_directory_path() / ("vkattn-cache-test-" + std::to_string(::getpid()) + ".bin");
  std::filesystem::remove(path);
  uint32_t vendorId = 0;
  {
    Context ctx({.pipelineCache = path});
    vendorId = ctx.info().vendorId;
    Tensor x = ctx.tensor({4, 4}, randomValues(16, 1));
    softmax(ctx, x);
  }
  ASSERT_TRUE(std::filesystem::exists(path));
  // The file starts with the Vulkan pipeline cache header of this device (drivers such as lavapipe
  // keep their compiled code elsewhere, so the header may be all there is).
  {
    std::ifstream in(path, std::ios::binary);
    uint32_t header[4] = {};
    in.read(reinterpret_cast<char*>(header), sizeof(header));
    ASSERT_TRUE(in.good());
    EXPECT_EQ(header[0], 32u) << "header length";
    EXPECT_EQ(header[1], static_cast<uint32_t>(VK_PIPELINE_CACHE_HEADER_VERSION_ONE));
    EXPECT_EQ(header[2], vendorId);
  }
  {
    Context ctx({.pipelineCache = path});  // loads the file; the result must still be right
    auto v = randomValues(16, 2);
    Tensor y = softmax(ctx, ctx.tensor({4, 4}, v));
    EXPECT_TRUE(allClose(y.download(), softmaxRef(v, 4, 1.0, nullptr, {}), 2e-6, 1e-5));
  }
  // A corrupt cache file is ignored, not fatal.
  { std::ofstream(path, std::ios::binary) << "garbage that is not a pipeline cache"; }
  EXPECT_NO_THROW({
    Context ctx({.pipelineCache = path});
    softmax(ctx, ctx.tensor({1, 3}, randomValues(3, 4)));
  });
  std::filesystem::remove(path);
}

// Two Contexts open on one cache file at once (the threads of `vkattn warmup`, two processes):
// the one that closes last merges what the first saved, so the file holds both one's pipelines.
TEST(PipelineCache, ContextsClosingInTurnKeepEachOthersPipelines) {
  const auto dir = std::filesystem::temp_directory_path() / ("vkattn-cache-merge-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto sizeAfter = [](const std::filesystem::path& path, auto&& work) {
    {
      Context ctx({.pipelineCache = path});
      work(ctx);
    }
    return std::filesystem::file_size(path);
  };
  auto runSoftmax = [](Context& ctx) { softmax(ctx, ctx.tensor({4, 8}, randomValues(32, 1))); };
  auto runRmsNorm = [](Context& ctx) { rmsNorm(ctx, ctx.tensor({4, 8}, randomValues(32, 2))); };
  const auto softmaxAlone = sizeAfter(dir / "softmax.bin", runSoftmax);
  const auto rmsNormAlone = sizeAfter(dir / "rms.bin", runRmsNorm);
  std::uintmax_t both = 0;
  {
    const auto shared = dir / "shared.bin";
    Context second({.pipelineCache = shared});
    {
      Context first({.pipelineCache = shared});
      runSoftmax(first);
    }  // saves the softmax pipelines
    runRmsNorm(second);
    second.device().savePipelineCache();
    both = std::filesystem::file_size(shared);
  }
  std::filesystem::remove_all(dir);
  if (softmaxAlone <= 32 || rmsNormAlone <= 32)
    GTEST_SKIP() << "this driver writes only the cache header (" << softmaxAlone << " bytes): nothing to merge";
  EXPECT_GT(both, std::max(softmaxAlone, rmsNormAlone)) << "the second Context kept the first's pipelines";
}

}  // namespace
}  // namespace vkattn::test

namespace vkattn::test {
namespace {

// Constants and bindings go by name (shaders/include/kernel_interface.h); what the C++ side names
// must agree with what the SPIR-V declares, or the pipeline refuses to be built.
TEST(SpecConstants, AnIdMayBeSetOnlyOnce) {
  SpecConstants c;
  c.set(3u, true);
  EXPECT_THROW(c.set(3u, false), Error);
  EXPECT_EQ(c.set(1u, 7u).key(), (std::vector<uint32_t>{1, 7, 3, 1}));  // id order, whatever the call order
}

TEST_F(VkattnTest, PipelinesRefuseConstantsOfTheWrongTypeAndTooFewBindings) {
  // copy.comp declares its workgroup size (id 0) as uint: a bool there is a naming mistake.
  try {
    ctx().pipelines().get({"copy", 2, 4, SpecConstants().set(0u, true)});
    ADD_FAILURE() << "a bool for a uint constant was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("declared uint but set as bool"), std::string::npos) << e.what();
  }
  // softmax.comp declares four bindings (x, y, mask, status).
  try {
    ctx().pipelines().get({"softmax_f32", 2, 64, SpecConstants().set(0u, 64u)});
    ADD_FAILURE() << "a pipeline with fewer bindings than the shader declares was built";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("declares binding"), std::string::npos) << e.what();
  }
}

TEST_F(VkattnTest, DispatchRefusesABindingNamedTwice) {
  const Pipeline& copy = ctx().pipelines().get({"copy", 2, 4, SpecConstants().set(0u, 64u)});
  Tensor a = ctx().tensor({16}), b = ctx().tensor({16});
  const uint32_t count = 4;
  EXPECT_THROW(ctx().recorder().dispatch(copy, {{0, &a.buffer()}, {0, &b.buffer()}}, count, {1, 1, 1}), Error);
  EXPECT_THROW(ctx().recorder().dispatch(copy, {{0, &a.buffer()}, {2, &b.buffer()}}, count, {1, 1, 1}), Error);
  ctx().recorder().discard();
}

}  // namespace
}  // namespace vkattn::test
