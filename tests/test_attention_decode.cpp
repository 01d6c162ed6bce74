// The GPU decode kernel (attention_decode.comp) against the double reference on the shapes it is
// built for: few query rows over long caches, the query heads of a KV head packed into one
// workgroup (more of them than one workgroup's rows, so several row blocks), head dims up to
// MLA's, f32 and f16, automatic and explicit key splits merged by the parallel combine; which
// inputs it refuses by name; NaN blamed on the right input when a key's head dim is spread over
// lanes; and what Auto picks on a GPU-class context. The whole Attention suite also runs on it
// (test_attention's kernel_decode family).
#include <cmath>
#include <string>
#include <tuple>

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

class AttentionDecodeKernel : public VkattnTest {
 protected:
  void SetUp() override {
    VkattnTest::SetUp();
    if (const std::string why = familySkipReason(ctx(), Family::Decode); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(AttentionDecodeKernel, PackedHeadsAgainstLongCaches) {
  // (Hq, Hkv, Lq, Lk, Dk, Dv, dtype): Llama-style GQA 4:1 at D 128, 8:1 with three query rows (24
  // packed rows: several row blocks), MQA, Dk != Dv, MLA's 576/512 and a short cache.
  for (auto [hq, hkv, lq, lk, dk, dv, dtype] :
       {std::tuple{32, 8, 1, 4100, 128, 128, DType::F16}, std::tuple{16, 2, 3, 2000, 64, 64, DType::F32},
        std::tuple{8, 1, 1, 3001, 128, 128, DType::F32}, std::tuple{4, 2, 2, 777, 64, 128, DType::F16},
        std::tuple{4, 1, 1, 1200, 576, 512, DType::F32}, std::tuple{2, 2, 8, 5, 32, 32, DType::F32}}) {
    SCOPED_TRACE("Hq " + std::to_string(hq) + " Hkv " + std::to_string(hkv) + " Lq " + std::to_string(lq) + " Lk " +
                 std::to_string(lk) + " D " + std::to_string(dk) + "/" + std::to_string(dv) + " " + toString(dtype));
    auto pr = problem(2, hq, hkv, lq, lk, dk, dv);
    pr.causal = true;
    pr.bottomRight = true;
    Inputs in = makeInputs(ctx(), pr, dtype, 1000 + lk);
    check(ctx(), Path::Decode, pr, in, optionsFor(pr), dtype);
    AttentionOptions split = optionsFor(pr);
    split.keySplits = 7;
    check(ctx(), Path::Decode, pr, in, split, dtype);
  }
}

TEST_F(AttentionDecodeKernel, MasksSinksAndKeyLengths) {
  // Key lengths (one sequence empty), a window, sinks, ALiBi and softcap at once, with splits.
  auto pr = problem(3, 8, 2, 2, 900, 64, 64);
  pr.causal = true;
  pr.bottomRight = true;
  pr.alignToKeyLengths = true;
  pr.windowLeft = 300;
  pr.softcap = 5.0;
  std::vector<int32_t> lens = {900, 413, 0};
  pr.keyLengths = &lens;
  Tensor tLens = Tensor::fromHostInt(ctx().device(), {3}, lens);
  AttentionOptions o = optionsFor(pr);
  o.keyLengths = tLens.view();
  HeadTerms terms;
  addHeadTerms(ctx(), pr, o, terms, true, true);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 1401, 2.0f);
  for (uint32_t splits : {1u, 0u, 5u, 37u}) {  // 37: several rounds of any subgroup's lanes in the combine
    SCOPED_TRACE("key splits " + std::to_string(splits));
    AttentionOptions s = o;
    s.keySplits = splits;
    check(ctx(), Path::Decode, pr, in, s, DType::F32);
  }
}

TEST_F(AttentionDecodeKernel, RefusesWhatItCannotReadByName) {
  Context& c = ctx();
  auto refusal = [&](const TensorView& q, const TensorView& k, const TensorView& v) {
    try {
      attention(c, q, k, v, {.variant = AttentionVariant::Decode});
    } catch (const Unsupported& e) {
      return std::string(e.what());
    }
    return std::string("ran");
  };
  // Head dim 30 (f32) and 12 (f16): not whole 16-byte words.
  Tensor q30 = c.tensor({1, 2, 1, 30}), k30 = c.tensor({1, 2, 16, 30});
  EXPECT_NE(refusal(q30, k30, k30).find("head dims in multiples of 4"), std::string::npos);
  Tensor q12 = c.tensor({1, 2, 1, 12}, std::vector<float>(24), DType::F16);
  Tensor k12 = c.tensor({1, 2, 16, 12}, std::vector<float>(384), DType::F16);
  EXPECT_NE(refusal(q12, k12, k12).find("head dims in multiples of 8"), std::string::npos);
  // K rows that start between words: a view of a [1, 2, 16, 34] buffer, head dim 32 from element 2.
  Tensor q32 = c.tensor({1, 2, 1, 32}), wide = c.tensor({1, 2, 16, 34});
  const TensorView shifted = wide.view().sliced(3, 2, 32);
  EXPECT_NE(refusal(q32, shifted, shifted).find("start at multiples"), std::string::npos);
  // K/V stored as bf16: the rows kernel's alone.
  Tensor kBf16 = c.tensor({1, 2, 16, 32}, std::vector<float>(1024), DType::BF16);
  EXPECT_NE(refusal(q32, kBf16, kBf16).find("bf16"), std::string::npos);
}

TEST_F(AttentionDecodeKernel, BlamesTheInputThatHoldsNaN) {
  // Head dim 128: each key's row is spread over several lanes; a NaN in one lane's slice of q
  // reaches every lane's score, and the lanes must agree that q, not k, holds it.
  Context& c = ctx();
  for (const char* which : {"q", "k", "v"}) {
    SCOPED_TRACE(which);
    auto q = randomValues(4 * 128, 21), k = randomValues(2 * 300 * 128, 22), v = randomValues(2 * 300 * 128, 23);
    const std::string w = which;
    (w == "q" ? q : w == "k" ? k : v)[128 * 1 + 4 * 23 + 2] = std::nanf("");
    Tensor tq = c.tensor({1, 4, 1, 128}, q), tk = c.tensor({1, 2, 300, 128}, k), tv = c.tensor({1, 2, 300, 128}, v);
    EXPECT_EQ(invalidArgumentOf([&] { attention(c, tq, tk, tv, {.variant = AttentionVariant::Decode}); }), w);
  }
}

TEST_F(AttentionDecodeKernel, AutoPicksItOnGpusForFewQueryRows) {
  Context gpu({.profile = KernelProfile::Gpu});
  Context cpu({.profile = KernelProfile::CpuDriver});
  auto variant = [](Context& c, int64_t lq, int64_t d) {
    Tensor q = c.tensor({1, 8, lq, d}), k = c.tensor({1, 2, 64, d});
    return attentionVariantFor(c, q, k, k, {});
  };
  EXPECT_EQ(variant(gpu, 1, 64), AttentionVariant::Decode);
  EXPECT_EQ(variant(gpu, 8, 128), AttentionVariant::Decode);
  EXPECT_EQ(variant(gpu, 1, 30), AttentionVariant::Rows);   // not whole words: the rows kernel's decode mode
  EXPECT_EQ(variant(gpu, 9, 64), AttentionVariant::Tiled);  // f32: no matrix units
  EXPECT_EQ(variant(cpu, 1, 64), AttentionVariant::Rows);
  // What it picks is what runs: Auto's decode output on the GPU-class context matches the reference.
  auto pr = problem(1, 8, 2, 1, 700, 64, 64);
  Inputs in = makeInputs(gpu, pr, DType::F32, 1500);
  const AttentionResult ref = attentionRef(pr, in.q, in.k, in.v);
  EXPECT_TRUE(allClose(attention(gpu, in.tq, in.tk, in.tv, optionsFor(pr)).download(), ref.out, kAtolF32, kRtolF32));
}

}  // namespace
}  // namespace vkattn::test
