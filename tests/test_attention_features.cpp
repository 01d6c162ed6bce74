// What inference engines need beyond masks, against the double reference: any head size 1..576
// (odd ones, the MLA pairs 192/128, 320/256, 576/512, V as a view of K), the logit softcap,
// attention sinks and ALiBi slopes, alone and together with masks, GQA, split-K, decode and f16;
// the fragment kernel (emulated) on the same features, and the stated refusals.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "support/attention_check.hpp"
#include "support/compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

void checkPaths(Context& ctx, const std::vector<Path>& paths, const AttentionProblem& pr, const Inputs& in,
                const AttentionOptions& o, DType dtype = DType::F32) {
  for (Path path : paths) check(ctx, path, pr, in, o, dtype);
}

class AttentionAnyHeadDim : public VkattnTest, public ::testing::WithParamInterface<std::tuple<int, int>> {};

// Head dims that are not multiples of 4 or 8 (a partial last vec4 word), and the large pairs of
// MLA and Mistral-style models; rows, tiled and the naive path.
TEST_P(AttentionAnyHeadDim, MatchesReference) {
  const auto [dk, dv] = GetParam();
  const bool large = std::max(dk, dv) > 256;
  auto pr =
      problem(2, 4, 2, large ? 9 : 19, large ? 23 : 37, static_cast<std::size_t>(dk), static_cast<std::size_t>(dv));
  pr.causal = true;
  pr.bottomRight = true;
  Inputs in = makeInputs(ctx(), pr, DType::F32, 300 + static_cast<uint64_t>(dk));
  checkPaths(ctx(), {Path::Rows, Path::Tiled, Path::Naive}, pr, in, optionsFor(pr));
}

INSTANTIATE_TEST_SUITE_P(Sizes, AttentionAnyHeadDim,
                         ::testing::Values(std::tuple{1, 1}, std::tuple{3, 5}, std::tuple{8, 8}, std::tuple{12, 12},
                                           std::tuple{100, 100}, std::tuple{192, 128}, std::tuple{320, 256},
                                           std::tuple{576, 512}),
                         [](const ::testing::TestParamInfo<std::tuple<int, int>>& info) {
                           return "dk" + std::to_string(std::get<0>(info.param)) + "_dv" +
                                  std::to_string(std::get<1>(info.param));
                         });

TEST_F(VkattnTest, AttentionOddHeadDimF16AndDecode) {
  // f16 storage with a partial last word, and the decode mode (1 row, split keys) at dim 40 / 24.
  auto pr = problem(1, 2, 1, 13, 29, 12, 20);
  checkPaths(ctx(), {Path::Rows, Path::Tiled}, pr, makeInputs(ctx(), pr, DType::F16, 310), optionsFor(pr), DType::F16);
  auto decode = problem(2, 4, 1, 1, 2500, 40, 24);
  Inputs in = makeInputs(ctx(), decode, DType::F32, 311);
  check(ctx(), Path::Rows, decode, in, optionsFor(decode), DType::F32);
  AttentionOptions split = optionsFor(decode);
  split.keySplits = 3;
  check(ctx(), Path::Rows, decode, in, split, DType::F32);
}

// DeepSeek MLA: one latent cache [B, Hkv, L, Dk] serves as K, and its first Dv features as V.
// Causal, with lse: at MLA's own 576/512 (the same pipelines as that head-dim case) and small.
class AttentionValueIsAViewOfKey : public VkattnTest,
                                   public ::testing::WithParamInterface<std::tuple<std::size_t, std::size_t>> {};

TEST_P(AttentionValueIsAViewOfKey, MatchesReference) {
  const auto [dk, dv] = GetParam();
  auto pr = problem(1, 8, 1, 5, 40, dk, dv);
  pr.causal = true;
  pr.bottomRight = true;
  Inputs in = makeInputs(ctx(), pr, DType::F32, 320);
  const TensorView& k = in.tk.view();
  const TensorView v{k.buffer, DType::F32, {1, 1, 40, static_cast<int64_t>(dv)}, k.strides, k.offset};
  std::vector<float> vHost;
  for (std::size_t j = 0; j < pr.lk; ++j)
    vHost.insert(vHost.end(), in.k.begin() + static_cast<std::ptrdiff_t>(j * dk),
                 in.k.begin() + static_cast<std::ptrdiff_t>(j * dk + dv));
  const AttentionResult ref = attentionRef(pr, in.q, in.k, vHost);
  for (Path path : {Path::Rows, Path::Tiled}) {
    SCOPED_TRACE(pathName(path));
    AttentionOptions o = optionsFor(pr);
    o.variant = variantOf(path);
    Tensor lse = ctx().tensor({1, 8, 5});
    o.lse = lse.view();
    EXPECT_TRUE(allClose(attention(ctx(), in.tq, in.tk, v, o).download(), ref.out, kAtolF32, kRtolF32));
    EXPECT_TRUE(allClose(lse.download(), ref.lse, kAtolLse, kRtolLse));
  }
}

INSTANTIATE_TEST_SUITE_P(Mla, AttentionValueIsAViewOfKey,
                         ::testing::Values(std::tuple<std::size_t, std::size_t>{576, 512},
                                           std::tuple<std::size_t, std::size_t>{64, 48}),
                         [](const auto& info) {
                           return "dk" + std::to_string(std::get<0>(info.param)) + "_dv" +
                                  std::to_string(std::get<1>(info.param));
                         });

TEST_F(VkattnTest, AttentionSoftcapBoundsLargeLogits) {
  // Logits up to ~|64 * 9| scaled by 1 / 8: softcap 5 squeezes them into (-5, 5).
  for (double cap : {5.0, 50.0}) {
    SCOPED_TRACE("softcap " + std::to_string(cap));
    auto pr = problem(2, 4, 2, 21, 45, 64, 64);
    pr.softcap = cap;
    Inputs in = makeInputs(ctx(), pr, DType::F32, 330, 3.0f);
    for (Path path : {Path::Rows, Path::Tiled, Path::Naive})
      check(ctx(), path, pr, in, optionsFor(pr), DType::F32, 3.0);
  }
}

TEST_F(VkattnTest, AttentionSinksJoinTheDenominator) {
  // Sinks with causal masks, padding (batch 1 has no key: lse is the sink), GQA and split-K.
  auto pr = problem(2, 4, 2, 11, 57, 32, 48);
  pr.causal = true;
  pr.bottomRight = true;
  std::vector<int32_t> lens = {40, 0};
  Tensor tlens = Tensor::fromHostInt(ctx().device(), {2}, lens);
  pr.keyLengths = &lens;
  AttentionOptions o = optionsFor(pr);
  o.keyLengths = tlens.view();
  HeadTerms terms;
  addHeadTerms(ctx(), pr, o, terms, true, false);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 340);
  checkPaths(ctx(), {Path::Rows, Path::Tiled}, pr, in, o);
  AttentionOptions split = o;
  split.keySplits = 4;
  check(ctx(), Path::Rows, pr, in, split, DType::F32);
}

TEST_F(VkattnTest, AttentionSinksInDecode) {
  // One query row over a long cache: the lanes split the keys, automatic split-K merges them and
  // the sink joins once, after the merge.
  auto pr = problem(1, 8, 2, 1, 4000, 64, 64);
  AttentionOptions o = optionsFor(pr);
  HeadTerms terms;
  addHeadTerms(ctx(), pr, o, terms, true, false);
  check(ctx(), Path::Rows, pr, makeInputs(ctx(), pr, DType::F32, 345), o, DType::F32);
}

TEST_F(VkattnTest, AttentionDecodePacksTheHeadsOfAKvHead) {
  // Decode packs the 8 query heads sharing a KV head into the rows of one workgroup (3 rows x 8
  // heads = 24 packed rows, in blocks that straddle heads). Every term that differs per head or
  // per row must follow its own row: a per-head bias and keep mask, per-batch ALiBi slopes, sinks,
  // a bottom-right causal window, key lengths; automatic and explicit key splits.
  auto pr = problem(2, 16, 2, 3, 700, 32, 24);
  pr.causal = true;
  pr.bottomRight = true;
  pr.windowLeft = 300;
  pr.softcap = 5.0;
  std::vector<float> bias = randomValues(16 * 3 * 700, 391, -1.0f, 1.0f);
  std::vector<int32_t> keep(16 * 700);
  for (std::size_t x = 0; x < keep.size(); ++x) keep[x] = (x * 7 + x / 700) % 11 != 3;
  std::vector<int32_t> lens = {700, 450};
  pr.bias = &bias;
  pr.biasDims[1] = 16;
  pr.biasDims[2] = 3;
  pr.keep = &keep;
  pr.keepDims[1] = 16;
  pr.keyLengths = &lens;
  Tensor tBias = ctx().tensor({16, 3, 700}, bias);
  Tensor tKeep = Tensor::fromHostInt(ctx().device(), {1, 16, 1, 700}, keep);
  Tensor tLens = Tensor::fromHostInt(ctx().device(), {2}, lens);
  AttentionOptions o = optionsFor(pr);
  o.bias = tBias.view();
  o.keepMask = tKeep.view();
  o.keyLengths = tLens.view();
  HeadTerms terms;
  addHeadTerms(ctx(), pr, o, terms, true, true, true);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 390, 2.0f);
  for (uint32_t splits : {0u, 1u, 5u}) {
    SCOPED_TRACE("key splits " + std::to_string(splits));
    AttentionOptions s = o;
    s.keySplits = splits;
    check(ctx(), Path::Rows, pr, in, s, DType::F32);
  }
  // MQA in f16: 12 query heads over one KV head, one row each.
  auto mqa = problem(1, 12, 1, 1, 900, 64, 64);
  check(ctx(), Path::Rows, mqa, makeInputs(ctx(), mqa, DType::F16, 392), optionsFor(mqa), DType::F16);
}

TEST_F(VkattnTest, AttentionAlibiSlopes) {
  // Per-head and per-batch slopes, Lq != Lk, with and without causal masks and key lengths (ALiBi
  // measures distance from the batch's last key).
  for (bool perBatch : {false, true}) {
    for (bool causal : {false, true}) {
      SCOPED_TRACE(std::string(perBatch ? "per batch" : "per head") + (causal ? ", causal" : ""));
      auto pr = problem(2, 4, 4, 13, 31, 32, 32);
      pr.causal = causal;
      pr.bottomRight = true;
      std::vector<int32_t> lens = {31, 20};
      Tensor tlens = Tensor::fromHostInt(ctx().device(), {2}, lens);
      pr.keyLengths = &lens;
      AttentionOptions o = optionsFor(pr);
      o.keyLengths = tlens.view();
      HeadTerms terms;
      addHeadTerms(ctx(), pr, o, terms, false, true, perBatch);
      Inputs in = makeInputs(ctx(), pr, DType::F32, 350);
      checkPaths(ctx(), {Path::Rows, Path::Tiled, Path::Naive}, pr, in, o);
    }
  }
}

TEST_F(VkattnTest, AttentionWeightsWithSoftcapAndAlibi) {
  auto pr = problem(1, 4, 2, 9, 17, 16, 16);
  pr.softcap = 2.0;
  AttentionOptions o = optionsFor(pr);
  HeadTerms terms;
  addHeadTerms(ctx(), pr, o, terms, false, true);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 360, 2.0f);
  const AttentionResult ref = attentionRef(pr, in.q, in.k, in.v);
  EXPECT_TRUE(
      allClose(attentionWeights(ctx(), in.tq, in.tk, {}, o).download(), ref.probs, kWeights.atol, kWeights.rtol));
}

TEST_F(VkattnTest, AttentionEveryFeatureTogether) {
  // Softcap, sinks, per-batch ALiBi, a sliding window, a bias and a keep mask over GQA, in f32 and
  // f16, with an odd head dim on the rows and tiled kernels.
  for (DType dtype : {DType::F32, DType::F16}) {
    SCOPED_TRACE(toString(dtype));
    auto pr = problem(2, 6, 2, 17, 33, 44, 36);
    pr.softcap = 8.0;
    pr.windowLeft = 12;
    pr.windowRight = 3;
    std::vector<float> bias = randomValues(17 * 33, 371, -1.0f, 1.0f);
    std::vector<int32_t> keep(2 * 33);
    for (std::size_t x = 0; x < keep.size(); ++x) keep[x] = x % 5 != 2;
    pr.bias = &bias;
    pr.biasDims[2] = 17;
    pr.keep = &keep;
    pr.keepDims[0] = 2;
    Tensor tBias = ctx().tensor({17, 33}, bias);
    Tensor tKeep = Tensor::fromHostInt(ctx().device(), {2, 1, 1, 33}, keep);
    AttentionOptions o = optionsFor(pr);
    o.bias = tBias.view();
    o.keepMask = tKeep.view();
    HeadTerms terms;
    addHeadTerms(ctx(), pr, o, terms, true, true, true);
    checkPaths(ctx(), {Path::Rows, Path::Tiled}, pr, makeInputs(ctx(), pr, dtype, 370, 2.0f), o, dtype);
  }
}

// The fragment kernel on the device's matrix units and with emulated fragments (where each runs)
// on softcap, sinks and ALiBi, with and without key splits; it refuses head dims outside 16..256
// in steps of 8 by name.
class AttentionFragmentFeatures : public VkattnTest, public ::testing::WithParamInterface<Family> {};

INSTANTIATE_TEST_SUITE_P(Kernels, AttentionFragmentFeatures,
                         ::testing::Values(Family::Coopmat, Family::CoopmatEmulated, Family::Coopmat2,
                                           Family::Coopmat2Workgroup, Family::Decode),
                         [](const ::testing::TestParamInfo<Family>& info) { return familyName(info.param); });

TEST_P(AttentionFragmentFeatures, SoftcapSinksAlibiAndSplits) {
  const Path path = pathsOf(GetParam()).front();
  if (const std::string why = familySkipReason(ctx(), GetParam()); !why.empty()) GTEST_SKIP() << why;
  auto odd = problem(1, 1, 1, 4, 4, 12, 12);
  Inputs oddIn = makeInputs(ctx(), odd, DType::F16, 381);
  try {
    attention(ctx(), oddIn.tq, oddIn.tk, oddIn.tv, {.variant = variantOf(path)});
    ADD_FAILURE() << "head dim 12 ran on " << pathName(path);
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("head dims"), std::string::npos) << e.what();
  }
  auto pr = problem(1, 4, 2, 20, 40, 32, 32);
  pr.causal = true;
  pr.softcap = 6.0;
  AttentionOptions o = optionsFor(pr);
  HeadTerms terms;
  addHeadTerms(ctx(), pr, o, terms, true, true);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 380, 2.0f);
  check(ctx(), path, pr, in, o, DType::F32);
  AttentionOptions split = o;  // the sink joins once, after the splits merge
  split.keySplits = 3;
  check(ctx(), path, pr, in, split, DType::F32);
}

// The fragment kernel with S and P in shared memory, S in registers, and both in registers (as far
// as the device's layout allows: fragment_layout.hpp): GQA, Dk != Dv, odd lengths that leave
// partial tiles and rows, bottom-right causal, softcap, sinks and ALiBi, lse, key splits, f32 and
// f16 storage (the f32 build only where the kernel has one).
TEST_P(AttentionFragmentFeatures, SAndPInSharedMemoryOrInRegisters) {
  const Family family = GetParam();
  if (family != Family::Coopmat && family != Family::CoopmatEmulated)
    GTEST_SKIP() << "the fragment kernel's softmax placements";
  if (const std::string why = familySkipReason(ctx(), family); !why.empty()) GTEST_SKIP() << why;
  const Path path = pathsOf(family).front();
  struct Unset {
    ~Unset() { ::unsetenv("VKATTN_ATTENTION_SOFTMAX"); }
  } unset;
  auto pr = problem(2, 4, 2, 21, 37, 40, 24);
  pr.causal = true;
  pr.bottomRight = true;
  pr.softcap = 5.0;
  AttentionOptions o = optionsFor(pr);
  HeadTerms terms;
  addHeadTerms(ctx(), pr, o, terms, true, true);
  AttentionOptions split = o;
  split.keySplits = 2;
  const Inputs in32 = makeInputs(ctx(), pr, DType::F32, 390, 2.0f), in16 = makeInputs(ctx(), pr, DType::F16, 391, 2.0f);
  for (const char* placement : {"shared", "s-registers", "registers"}) {
    SCOPED_TRACE(placement);
    ::setenv("VKATTN_ATTENTION_SOFTMAX", placement, 1);
    if (family == Family::CoopmatEmulated) check(ctx(), path, pr, in32, o, DType::F32);
    check(ctx(), path, pr, in16, o, DType::F16);
    check(ctx(), path, pr, in16, split, DType::F16);
  }
}

// Masked logits are a finite sentinel, so masking does not depend on IEEE -inf arithmetic, which
// a driver may assume away when a module does not declare NaN/Inf preservation: every fused kernel
// on modules left without that execution mode (VKATTN_NAN_PRESERVE=0, a context of its own), over
// rows that see no key (bottom-right causal with Lq > Lk, key length 0), a -inf bias and a
// window, prompt and decode, with and without key splits, lse included. The emulated fragment
// kernel's case is the exhaustive tier's (its modules are the slowest for lavapipe to build).
void checkMasksWithoutInfArithmetic(bool emulatedFragments) {
  ::setenv("VKATTN_NAN_PRESERVE", "0", 1);
  struct Unset {
    ~Unset() { ::unsetenv("VKATTN_NAN_PRESERVE"); }
  } unset;
  Context plain;
  std::vector<Path> paths;
  if (emulatedFragments) {
    if (!emulatedFragmentsRun(plain))
      GTEST_SKIP() << "the emulated fragments need fixed 8-lane subgroups with shuffles";
    paths = {Path::CoopmatEmulated};
  } else {
    paths = {Path::Rows, Path::Tiled};
    if (familySkipReason(plain, Family::Decode).empty()) paths.push_back(Path::Decode);
  }
  for (std::size_t lq : {40u, 1u}) {
    SCOPED_TRACE("lq " + std::to_string(lq));
    auto pr = problem(2, 4, 2, lq, 30, 32, 32);
    pr.causal = true;
    pr.bottomRight = true;  // with Lq = 40 > Lk = 30, rows 0..9 see no key
    pr.windowLeft = 12;
    std::vector<int32_t> lens = {30, 0};
    pr.keyLengths = &lens;
    Tensor tlens = Tensor::fromHostInt(plain.device(), {2}, lens);
    auto bias = randomValues(2 * 4 * lq * 30, 77, -2.0f, 2.0f);
    for (std::size_t i = 0; i < bias.size(); i += 5) bias[i] = -std::numeric_limits<float>::infinity();
    Tensor tbias = plain.tensor({2, 4, static_cast<int64_t>(lq), 30}, bias);
    pr.bias = &bias;
    pr.biasDims[0] = 2;
    pr.biasDims[1] = 4;
    pr.biasDims[2] = lq;
    Inputs in = makeInputs(plain, pr, DType::F32, 78 + lq);
    AttentionOptions o = optionsFor(pr);
    o.keyLengths = tlens.view();
    o.bias = tbias.view();
    for (Path path : paths) {
      check(plain, path, pr, in, o, DType::F32);
      if (path == Path::Tiled) continue;  // the tiled kernel does not split keys
      AttentionOptions split = o;
      split.keySplits = 2;
      check(plain, path, pr, in, split, DType::F32);
    }
  }
}

TEST_F(VkattnTest, MasksNeedNoInfArithmetic) {
  checkMasksWithoutInfArithmetic(false);
}

TEST_F(VkattnTest, MasksNeedNoInfArithmeticEmulatedFragments) {
  checkMasksWithoutInfArithmetic(true);
}

TEST_F(VkattnTest, AttentionRejectsBadLogitOptions) {
  Context& c = ctx();
  Tensor q = c.tensor({2, 4, 8, 16}), k = c.tensor({2, 2, 8, 16}), v = c.tensor({2, 2, 8, 16});
  for (float cap : {-1.0f, std::nanf(""), INFINITY})
    EXPECT_EQ(invalidArgumentOf([&] { attention(c, q, k, v, {.softcap = cap}); }), "softcap");
  Tensor three = c.tensor({3}), perBatch = c.tensor({2, 4});
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q, k, v, {.sinks = three.view()}); }), "sinks");
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q, k, v, {.sinks = perBatch.view()}); }), "sinks");
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q, k, v, {.alibiSlopes = three.view()}); }), "alibiSlopes");
  Tensor sinks = c.tensor({4});
  EXPECT_EQ(invalidArgumentOf([&] { attentionNaive(c, q, k, v, {.sinks = sinks.view()}); }), "sinks");
  EXPECT_EQ(invalidArgumentOf([&] { attentionWeights(c, q, k, {}, {.sinks = sinks.view()}); }), "sinks");
  Tensor slopesI32 = Tensor::fromHostInt(c.device(), {4}, std::vector<int32_t>(4, 1));
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q, k, v, {.alibiSlopes = slopesI32.view()}); }), "alibiSlopes");
}

TEST_F(VkattnTest, AttentionReadsAPagedCache) {
  // Decode (one and three rows, GQA packing) and a prompt of 12 rows over a paged cache, on the rows
  // kernel and the decode kernel: key lengths that end inside a block, bottom-right causal windows,
  // sinks and ALiBi, automatic and explicit key splits; f32, f16 and a head dim that is not a
  // multiple of 4 (scalar loads).
  struct Case {
    std::size_t lq, blockSize, blocks, dk;
    DType dtype;
  };
  for (const Case& c : {Case{1, 16, 5, 64, DType::F32}, Case{3, 8, 9, 32, DType::F32}, Case{12, 8, 7, 30, DType::F32},
                        Case{1, 32, 4, 64, DType::F16}}) {
    SCOPED_TRACE("lq " + std::to_string(c.lq) + ", block " + std::to_string(c.blockSize) + ", dk " +
                 std::to_string(c.dk) + ", " + toString(c.dtype));
    auto pr = problem(3, 8, 2, c.lq, c.blocks * c.blockSize, c.dk, c.dk);
    pr.causal = true;
    pr.bottomRight = true;
    pr.alignToKeyLengths = c.lq != 3;  // each sequence's own last key, as flash-attn's cache_seqlens
    pr.windowLeft = 40;
    std::vector<int32_t> lens = {static_cast<int32_t>(pr.lk), static_cast<int32_t>(pr.lk / 2 + 3), 1};
    pr.keyLengths = &lens;
    Tensor tLens = Tensor::fromHostInt(ctx().device(), {3}, lens);
    AttentionOptions o = optionsFor(pr);
    o.keyLengths = tLens.view();
    HeadTerms terms;
    addHeadTerms(ctx(), pr, o, terms, true, true);
    Inputs in = makeInputs(ctx(), pr, c.dtype, 610 + c.lq);
    const Tensor table = pageInputs(ctx(), pr, in, c.blockSize, c.dtype, 611);
    o.blockTable = table.view();
    for (uint32_t splits : {0u, 3u}) {
      SCOPED_TRACE("key splits " + std::to_string(splits));
      AttentionOptions s = o;
      s.keySplits = splits;
      check(ctx(), Path::Rows, pr, in, s, c.dtype);
      // The decode kernel reads whole 16-byte words: head dim 30 is the rows kernel's alone.
      if (c.dk % 8 == 0 && familySkipReason(ctx(), Family::Decode).empty())
        check(ctx(), Path::Decode, pr, in, s, c.dtype);
    }
  }
}

// BottomRightOfKeyLengths: a batch of caches of different lengths, each sequence's last query at
// its own last key (causal, and a window), on every path; decode too. The emulated fragment
// kernel's case is the exhaustive tier's.
void checkAlignmentToEachKeyLength(Context& ctx, const std::vector<Path>& paths) {
  for (std::size_t lq : {5u, 1u}) {
    SCOPED_TRACE("lq " + std::to_string(lq));
    auto pr = problem(3, 4, 2, lq, 40, 32, 32);
    pr.causal = true;
    pr.bottomRight = true;
    pr.alignToKeyLengths = true;
    pr.windowLeft = 6;
    std::vector<int32_t> lens = {40, 17, 3};
    pr.keyLengths = &lens;
    Tensor tLens = Tensor::fromHostInt(ctx.device(), {3}, lens);
    AttentionOptions o = optionsFor(pr);
    o.keyLengths = tLens.view();
    Inputs in = makeInputs(ctx, pr, DType::F32, 630 + lq);
    checkPaths(ctx, paths, pr, in, o);
  }
}

TEST_F(VkattnTest, AttentionAlignsToEachKeyLengthEmulatedFragments) {
  if (!emulatedFragmentsRun(ctx())) GTEST_SKIP() << "the emulated fragments need fixed 8-lane subgroups with shuffles";
  checkAlignmentToEachKeyLength(ctx(), {Path::CoopmatEmulated});
}

TEST_F(VkattnTest, AttentionAlignsToEachKeyLength) {
  checkAlignmentToEachKeyLength(ctx(), pathsOf(Family::Fused));
  Tensor q = ctx().tensor({1, 1, 2, 8}, randomValues(16, 1)), k = ctx().tensor({1, 1, 4, 8}, randomValues(32, 2));
  EXPECT_EQ(
      invalidArgumentOf([&] { attention(ctx(), q, k, k, {.alignment = MaskAlignment::BottomRightOfKeyLengths}); }),
      "alignment");
}

TEST_F(VkattnTest, AttentionPagedCacheRefusals) {
  Context& c = ctx();
  Tensor q = c.tensor({2, 4, 3, 16}, randomValues(2 * 4 * 3 * 16, 620));
  Tensor cache = c.tensor({6, 2, 8, 16}, randomValues(6 * 2 * 8 * 16, 621));
  Tensor table = Tensor::fromHostInt(c.device(), {2, 3}, std::vector<int32_t>{0, 1, 2, 3, 4, 5});
  const AttentionOptions paged{.blockTable = table.view()};
  Tensor out = attention(c, q, cache, cache, paged);  // the rows kernel, picked for any Lq
  EXPECT_EQ(out.shape(), (Shape{2, 4, 3, 16}));
  for (AttentionVariant variant : {AttentionVariant::Tiled, AttentionVariant::CoopmatEmulated}) {
    AttentionOptions o = paged;
    o.variant = variant;
    try {
      attention(c, q, cache, cache, o);
      ADD_FAILURE() << toString(variant) << " took a paged cache";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("blockTable"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(attentionNaive(c, q, cache, cache, paged), Unsupported);
  Tensor wrongBatch = Tensor::fromHostInt(c.device(), {3, 2}, std::vector<int32_t>(6, 0));
  Tensor f32Table = c.tensor({2, 3});
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q, cache, cache, {.blockTable = wrongBatch.view()}); }), "blockTable");
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q, cache, cache, {.blockTable = f32Table.view()}); }), "blockTable");
  Tensor fewerBlocks = c.tensor({5, 2, 8, 16});
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q, cache, fewerBlocks, paged); }), "v");
}

}  // namespace
}  // namespace vkattn::test
