// The fragment layout analysis (vkattn/core/fragment_layout.hpp) against layouts written down from
// their documentation: vkattn's own emulated fragments (fragment.glsl), the accumulator and A
// layouts of NVIDIA's mma.sync m16n8k16 (PTX ISA), and RDNA3's WMMA as RADV lowers it
// (radv_nir_lower_cooperative_matrix.c); and layouts the register softmax cannot reduce. Then the
// probe kernel on this device, whose emulated fragments must read as fragment.glsl defines them.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "support/attention_check.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/fragment_layout.hpp"

using namespace vkattn;
using namespace vkattn::test;

namespace {

// (row, column) of element i of lane l.
using Place = std::function<std::pair<uint32_t, uint32_t>(uint32_t lane, uint32_t i)>;

// A probe's output for an accumulator of `length` elements per lane and an A fragment of
// `aLength`, whose codes use `cols` and `aCols` columns.
std::vector<uint32_t> probeOutput(uint32_t lanes, uint32_t length, uint32_t cols, const Place& acc, uint32_t aLength,
                                  uint32_t aCols, const Place& a) {
  std::vector<uint32_t> out(kFragmentProbeWords, 0);
  out[0] = length;
  out[1] = aLength;
  out[2] = lanes;
  for (uint32_t l = 0; l < lanes; ++l) {
    for (uint32_t i = 0; i < length; ++i) {
      const auto [r, c] = acc(l, i);
      out[3 + l * kFragmentProbeMaxElements + i] = r * cols + c;
    }
    for (uint32_t i = 0; i < aLength; ++i) {
      const auto [r, c] = a(l, i);
      out[3 + (kFragmentProbeMaxLanes + l) * kFragmentProbeMaxElements + i] = r * aCols + c;
    }
  }
  return out;
}

// fragment.glsl's emulation: lane l of 8 holds row i / 2, column l + 8 (i % 2), for A and the
// accumulator alike.
std::pair<uint32_t, uint32_t> emulated(uint32_t l, uint32_t i) {
  return {i / 2, l + 8 * (i % 2)};
}

// mma.sync m16n8k16, a 16 x 16 accumulator as two n8 tiles: lane l (group l / 4, thread l % 4)
// holds rows g and g + 8, columns 2t, 2t + 1 of each tile; A's 16 x 16 fragment the same places.
std::pair<uint32_t, uint32_t> mmaSync(uint32_t l, uint32_t i) {
  return {l / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (l % 4) + i % 2};
}

}  // namespace

TEST(FragmentLayout, EmulatedFragmentsKeepSAndPInRegisters) {
  const FragmentLayout layout = readFragmentLayout(probeOutput(8, 32, 16, emulated, 32, 16, emulated), 8, 16, 16, 16);
  EXPECT_EQ(layout.placement, SoftmaxPlacement::Registers) << describe(layout);
  EXPECT_EQ(layout.laneFree, 7u);     // every lane holds every row
  EXPECT_EQ(layout.elementFree, 1u);  // elements 2r and 2r + 1 share row r
}

TEST(FragmentLayout, MmaSyncLayoutsAgree) {
  const FragmentLayout layout = readFragmentLayout(probeOutput(32, 8, 16, mmaSync, 8, 16, mmaSync), 32, 16, 16, 16);
  EXPECT_EQ(layout.placement, SoftmaxPlacement::Registers) << describe(layout);
  EXPECT_EQ(layout.laneFree, 3u);
  EXPECT_EQ(layout.elementFree, 5u);
  EXPECT_EQ(describe(layout), "S and P in registers (lane bits 0x3 and element bits 0x5 free)");
}

TEST(FragmentLayout, Rdna3KeepsSInRegistersAndPInSharedMemory) {
  // Accumulator: column l % 16 of rows l / 16 + 2 i (wave32, 8 elements) or l / 16 + 4 i (wave64,
  // 4); A: row l % 16, all 16 columns, replicated over the halves.
  const Place a = [](uint32_t l, uint32_t i) { return std::pair<uint32_t, uint32_t>{l % 16, i}; };
  for (uint32_t lanes : {32u, 64u}) {
    const uint32_t length = 256 / lanes;
    const Place acc = [&](uint32_t l, uint32_t i) {
      return std::pair<uint32_t, uint32_t>{l / 16 + (lanes / 16) * i, l % 16};
    };
    const FragmentLayout layout = readFragmentLayout(probeOutput(lanes, length, 16, acc, 16, 16, a), lanes, 16, 16, 16);
    SCOPED_TRACE(describe(layout));
    EXPECT_EQ(layout.placement, SoftmaxPlacement::SRegisters);
    EXPECT_EQ(layout.laneFree, 15u);
    EXPECT_EQ(layout.elementFree, 0u);
    EXPECT_NE(layout.reason.find("16 elements"), std::string::npos);
  }
}

TEST(FragmentLayout, PStaysInSharedMemoryWhenALayoutDiffers) {
  // The emulated accumulator with A transposed lane for lane: S in registers, P not.
  const Place transposed = [](uint32_t l, uint32_t i) {
    const auto [r, c] = emulated(l, i);
    return std::pair<uint32_t, uint32_t>{c, r};
  };
  const FragmentLayout layout = readFragmentLayout(probeOutput(8, 32, 16, emulated, 32, 16, transposed), 8, 16, 16, 16);
  EXPECT_EQ(layout.placement, SoftmaxPlacement::SRegisters) << describe(layout);
  EXPECT_NE(layout.reason.find("in A"), std::string::npos) << layout.reason;
  // Fragments of different widths cannot share elements either: a 16 x 8 accumulator (lane l holds
  // column l of every row) beside 16 x 16 A fragments.
  const Place column = [](uint32_t l, uint32_t i) { return std::pair<uint32_t, uint32_t>{i, l}; };
  const FragmentLayout narrow = readFragmentLayout(probeOutput(8, 16, 8, column, 32, 16, emulated), 8, 16, 8, 16);
  EXPECT_EQ(narrow.placement, SoftmaxPlacement::SRegisters) << describe(narrow);
  EXPECT_EQ(narrow.laneFree, 7u);
  EXPECT_EQ(narrow.elementFree, 0u);
}

TEST(FragmentLayout, RefusesLayoutsShufflesCannotReduce) {
  // Row (l + i) % 4 over 4 lanes: each row spreads over lanes and elements that no set of index
  // bits joins.
  const Place diagonal = [](uint32_t l, uint32_t i) { return std::pair<uint32_t, uint32_t>{(l + i) % 4, i}; };
  FragmentLayout layout = readFragmentLayout(probeOutput(4, 4, 4, diagonal, 4, 4, diagonal), 4, 4, 4, 4);
  EXPECT_EQ(layout.placement, SoftmaxPlacement::Shared);
  EXPECT_NE(layout.reason.find("cannot join"), std::string::npos) << layout.reason;
  // An element held twice (replicated accumulators), a subgroup of another size, a short output.
  const Place twice = [](uint32_t l, uint32_t i) {
    return std::pair<uint32_t, uint32_t>{i / 2, (l % 4) + 8 * (i % 2)};
  };
  EXPECT_EQ(readFragmentLayout(probeOutput(8, 32, 16, twice, 32, 16, twice), 8, 16, 16, 16).placement,
            SoftmaxPlacement::Shared);
  EXPECT_EQ(readFragmentLayout(probeOutput(8, 32, 16, emulated, 32, 16, emulated), 16, 16, 16, 16).placement,
            SoftmaxPlacement::Shared);
  const std::vector<uint32_t> shortOutput(10, 0);
  EXPECT_EQ(readFragmentLayout(shortOutput, 8, 16, 16, 16).placement, SoftmaxPlacement::Shared);
}

TEST_F(VkattnTest, ProbeReadsTheEmulatedLayout) {
  if (!emulatedFragmentsRun(ctx())) GTEST_SKIP() << "the emulated fragments need fixed 8-lane subgroups with shuffles";
  const FragmentLayout layout = emulatedFragmentLayout(ctx());
  EXPECT_EQ(layout.placement, SoftmaxPlacement::Registers) << describe(layout);
  EXPECT_EQ(layout.laneFree, 7u);
  EXPECT_EQ(layout.elementFree, 1u);
  ::setenv("VKATTN_ATTENTION_SOFTMAX", "s-registers", 1);
  EXPECT_EQ(emulatedFragmentLayout(ctx()).placement, SoftmaxPlacement::SRegisters);
  ::setenv("VKATTN_ATTENTION_SOFTMAX", "in-registers", 1);
  try {
    emulatedFragmentLayout(ctx());
    ADD_FAILURE() << "took VKATTN_ATTENTION_SOFTMAX=in-registers";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "VKATTN_ATTENTION_SOFTMAX");
  }
  ::unsetenv("VKATTN_ATTENTION_SOFTMAX");
}

// The KHR module's layout where the device has cooperative matrices (Mesa 26's lavapipe in CI, a
// GPU): the probe must run and report every lane; what it found is printed for the log.
TEST_F(VkattnTest, ProbeReadsTheHardwareLayout) {
  const CoopmatChoice choice = coopmatChoiceFor(ctx().info());
  if (choice.flavour != CoopmatFlavour::Khr) GTEST_SKIP() << "no VK_KHR_cooperative_matrix module runs here";
  const FragmentLayout layout = fragmentLayoutFor(ctx(), choice);
  std::printf("[fragment layout] %s: %s\n", describe(choice).c_str(), describe(layout).c_str());
  EXPECT_EQ(layout.reason.find("the probe"), std::string::npos) << layout.reason;
}
