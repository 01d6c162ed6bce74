// Attention conformance against the double reference (tests/support/attention_reference): head
// dims, Dk != Dv, GQA/MQA, odd lengths, every mask kind and combinations, f16 storage, the
// [B, L, H, D] layout, outputs that are strided views, large logits, fully masked rows, a
// 16384-key case past llvmpipe's loop limit if head-dim loops were not unrolled. Each case runs
// three times: over both fused variants and, where it fits, the naive path; over the
// cooperative-matrix kernel on the device's matrix units (f16, at the device's fragment shape;
// skipped with the reason where there are none: Mesa 26's lavapipe runs it at 8x8x8); and over
// that kernel with emulated fragments (wherever its fixed 8-lane subgroups exist, lavapipe
// included). Tolerances are the shaders' documented ones.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "support/attention_check.hpp"
#include "support/compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

class Attention : public VkattnTest, public ::testing::WithParamInterface<Family> {
 protected:
  void SetUp() override {
    VkattnTest::SetUp();
    if (const std::string why = familySkipReason(ctx(), GetParam()); !why.empty()) GTEST_SKIP() << why;
  }
  std::vector<Path> paths(bool naive = true) const { return pathsOf(GetParam(), naive); }
  // The element type of cases that build their own tensors: f16 on the matrix units (which take
  // nothing else), f32 elsewhere; host values are rounded to it for the reference.
  DType storage() const { return onMatrixUnits(pathsOf(GetParam()).front()) ? DType::F16 : DType::F32; }
  std::vector<float> stored(std::vector<float> x) const { return storage() == DType::F16 ? roundToHalf(x) : x; }
  double atol() const { return storage() == DType::F16 ? kAtolF16 : kAtolF32; }
  double rtol() const { return storage() == DType::F16 ? kRtolF16 : kRtolF32; }
};

INSTANTIATE_TEST_SUITE_P(Kernels, Attention,
                         ::testing::Values(Family::Fused, Family::Coopmat, Family::CoopmatEmulated, Family::Coopmat2,
                                           Family::Coopmat2Workgroup, Family::Decode),
                         [](const ::testing::TestParamInfo<Family>& info) { return familyName(info.param); });

class AttentionHeadDim : public VkattnTest, public ::testing::WithParamInterface<std::tuple<Family, int>> {};

TEST_P(AttentionHeadDim, MatchesReference) {
  const auto [family, dim] = GetParam();
  if (const std::string why = familySkipReason(ctx(), family); !why.empty()) GTEST_SKIP() << why;
  const auto d = static_cast<std::size_t>(dim);
  // f32 K/V tiles of head dim 256 exceed lavapipe's 32 KiB of shared memory in the fragment
  // kernel (16 keys x 2 x 260 floats): that one runs with f16 storage.
  const bool f16 = family == Family::CoopmatEmulated && d == 256 && ctx().info().maxSharedMemoryBytes < 49152;
  checkAll(ctx(), pathsOf(family), problem(2, 2, 1, 33, 47, d, d), 100 + d, f16 ? DType::F16 : DType::F32);
}

INSTANTIATE_TEST_SUITE_P(Sweep, AttentionHeadDim,
                         ::testing::Combine(::testing::Values(Family::Fused, Family::Coopmat, Family::CoopmatEmulated,
                                                              Family::Coopmat2, Family::Coopmat2Workgroup,
                                                              Family::Decode),
                                            ::testing::Values(16, 40, 64, 80, 96, 128, 256)),
                         [](const ::testing::TestParamInfo<std::tuple<Family, int>>& info) {
                           return familyName(std::get<0>(info.param)) + "__d" + std::to_string(std::get<1>(info.param));
                         });

TEST_P(Attention, DkDiffersFromDv) {
  auto pr = problem(1, 4, 2, 29, 61, 64, 128);
  pr.causal = true;
  checkAll(ctx(), paths(), pr, 8);
}

TEST_P(Attention, GroupedQueryHeads) {
  for (std::size_t hkv : {8u, 4u, 2u, 1u}) checkAll(ctx(), paths(), problem(1, 8, hkv, 21, 40, 64, 64), 20 + hkv);
  checkAll(ctx(), paths(), problem(2, 16, 2, 9, 30, 32, 32), 31);  // ratio 8
}

TEST_P(Attention, OddLengths) {
  const std::size_t shapes[][2] = {{1, 1}, {1, 1000}, {7, 113}, {113, 7}, {64, 64}, {1000, 1000}};
  for (auto [lq, lk] : shapes) {
    SCOPED_TRACE("lq " + std::to_string(lq) + " lk " + std::to_string(lk));
    checkAll(ctx(), paths(lq * lk <= 100000), problem(1, lq == 1000 ? 1 : 3, 1, lq, lk, 64, 64), lq * 7 + lk);
  }
}

TEST_P(Attention, CausalAlignments) {
  for (std::size_t lq : {40u, 97u})
    for (bool bottomRight : {false, true}) {
      SCOPED_TRACE("lq " + std::to_string(lq) + (bottomRight ? " bottom-right" : " top-left"));
      auto pr = problem(2, 2, 2, lq, 70, 48, 48);
      pr.causal = true;
      pr.bottomRight = bottomRight;
      checkAll(ctx(), paths(), pr, lq + bottomRight);
    }
}

TEST_P(Attention, SlidingWindows) {
  auto pr = problem(1, 2, 1, 75, 75, 32, 32);
  pr.causal = true;
  pr.windowLeft = 9;
  checkAll(ctx(), paths(), pr, 41);
  pr.causal = false;
  pr.windowRight = 4;
  checkAll(ctx(), paths(), pr, 42);
  pr.windowLeft.reset();  // right extent only, bottom-right aligned with Lq < Lk
  pr.lq = 30;
  pr.bottomRight = true;
  checkAll(ctx(), paths(), pr, 43);
}

TEST_P(Attention, KeepMaskBroadcasts) {
  auto pr = problem(2, 3, 3, 19, 45, 32, 32);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 50);
  // [B, 1, Lq, Lk] and [1, H, 1, Lk] masks; some rows lose every key.
  struct Shape4 {
    std::size_t b, h, l;
  };
  for (Shape4 s : {Shape4{2, 1, 19}, Shape4{1, 3, 1}, Shape4{1, 1, 19}}) {
    std::vector<int32_t> keep(s.b * s.h * s.l * pr.lk);
    auto noise = randomValues(keep.size(), s.b * 100 + s.h * 10 + s.l);
    for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = noise[i] > -0.2f ? 1 : 0;
    if (s.l > 1) std::fill(keep.begin(), keep.begin() + static_cast<std::ptrdiff_t>(pr.lk), 0);  // row 0 fully masked
    Tensor tkeep =
        Tensor::fromHostInt(ctx().device(), {int64_t(s.b), int64_t(s.h), int64_t(s.l), int64_t(pr.lk)}, keep);
    AttentionProblem masked = pr;
    masked.keep = &keep;
    masked.keepDims[0] = s.b;
    masked.keepDims[1] = s.h;
    masked.keepDims[2] = s.l;
    AttentionOptions o = optionsFor(pr);
    o.keepMask = tkeep.view();
    for (Path path : paths()) check(ctx(), path, masked, in, o, DType::F32);
  }
}

TEST_P(Attention, AdditiveBiasWithInfinities) {
  auto pr = problem(2, 4, 2, 23, 37, 40, 40);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 60);
  // [1, H, Lq, Lk] (ALiBi-like, some -inf) and a rank-2 [Lq, Lk] bias.
  auto b1 = randomValues(4 * 23 * 37, 61, -3.0f, 3.0f);
  for (std::size_t i = 0; i < b1.size(); i += 5) b1[i] = kNegInf;
  Tensor tb1 = ctx().tensor({1, 4, 23, 37}, b1);
  AttentionProblem m1 = pr;
  m1.bias = &b1;
  m1.biasDims[1] = 4;
  m1.biasDims[2] = 23;
  AttentionOptions o1 = optionsFor(pr);
  o1.bias = tb1.view();
  for (Path path : paths()) check(ctx(), path, m1, in, o1, DType::F32);

  auto b2 = randomValues(23 * 37, 62, -2.0f, 2.0f);
  Tensor tb2 = ctx().tensor({23, 37}, b2);
  AttentionProblem m2 = pr;
  m2.bias = &b2;
  m2.biasDims[2] = 23;
  AttentionOptions o2 = optionsFor(pr);
  o2.bias = tb2.view();
  for (Path path : paths()) check(ctx(), path, m2, in, o2, DType::F32);
}

TEST_P(Attention, KeyLengthsAndCombinedMasks) {
  auto pr = problem(3, 4, 1, 50, 66, 64, 64);
  std::vector<int32_t> lens = {66, 17, 0};  // batch 2: every key is padding -> zeros
  Tensor tlens = Tensor::fromHostInt(ctx().device(), {3}, lens);
  pr.keyLengths = &lens;
  Inputs in = makeInputs(ctx(), pr, DType::F32, 70);
  AttentionOptions o = optionsFor(pr);
  o.keyLengths = tlens.view();
  for (Path path : paths()) check(ctx(), path, pr, in, o, DType::F32);

  // + causal (bottom-right) + window + bias + keep mask, all at once.
  pr.causal = true;
  pr.bottomRight = true;
  pr.windowLeft = 20;
  auto bias = randomValues(3 * 50 * 66, 71, -1.0f, 1.0f);
  Tensor tbias = ctx().tensor({3, 1, 50, 66}, bias);
  pr.bias = &bias;
  pr.biasDims[0] = 3;
  pr.biasDims[2] = 50;
  std::vector<int32_t> keep(4 * 66);
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = (i % 7) != 3;
  Tensor tkeep = Tensor::fromHostInt(ctx().device(), {4, 1, 66}, keep);
  pr.keep = &keep;
  pr.keepDims[1] = 4;
  AttentionOptions all = optionsFor(pr);
  all.keyLengths = tlens.view();
  all.bias = tbias.view();
  all.keepMask = tkeep.view();
  for (Path path : paths()) check(ctx(), path, pr, in, all, DType::F32);
}

// The fragment kernel's own f16 case list, on tensor cores wherever the device has them (asked for
// elsewhere it must be refused by name) and with emulated fragments wherever those run.
class AttentionFragmentKernel : public VkattnTest, public ::testing::WithParamInterface<Path> {};

INSTANTIATE_TEST_SUITE_P(Kernels, AttentionFragmentKernel,
                         ::testing::Values(Path::Coopmat, Path::CoopmatEmulated, Path::Coopmat2,
                                           Path::Coopmat2Workgroup),
                         [](const ::testing::TestParamInfo<Path>& info) {
                           return info.param == Path::Coopmat             ? "kernel_coopmat"
                                  : info.param == Path::Coopmat2          ? "kernel_coopmat2"
                                  : info.param == Path::Coopmat2Workgroup ? "kernel_coopmat2_wg"
                                                                          : "kernel_coopmat_emulated";
                         });

TEST_P(AttentionFragmentKernel, MatchesReference) {
  const Path path = GetParam();
  if (path == Path::CoopmatEmulated && !emulatedFragmentsRun(ctx()))
    GTEST_SKIP() << "the emulated fragments need fixed 8-lane subgroups with shuffles";
  const bool hardware = path == Path::Coopmat             ? ctx().info().cooperativeMatrixF16
                        : path == Path::Coopmat2          ? coopmat2ChoiceFor(ctx().info()).usable
                        : path == Path::Coopmat2Workgroup ? coopmat2WorkgroupChoiceFor(ctx().info()).usable
                                                          : true;
  if (!hardware) {
    auto pr = problem(1, 2, 2, 8, 8, 64, 64);
    Inputs in = makeInputs(ctx(), pr, DType::F16, 80);
    AttentionOptions o = optionsFor(pr);
    o.variant = variantOf(path);
    try {
      attention(ctx(), in.tq, in.tk, in.tv, o);
      ADD_FAILURE() << "the cooperative-matrix kernel ran on a device without it";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("cooperative-matrix"), std::string::npos) << e.what();
    }
    return;
  }
  if (onMatrixUnits(path)) {  // refused by name: f32 storage
    auto pr = problem(1, 1, 1, 8, 8, 64, 64);
    AttentionOptions o = optionsFor(pr);
    o.variant = variantOf(path);
    Inputs f32 = makeInputs(ctx(), pr, DType::F32, 82);
    EXPECT_THROW(attention(ctx(), f32.tq, f32.tk, f32.tv, o), Unsupported);
  }
  uint64_t seed = 900;
  // Head dims, Dk != Dv, GQA / MQA, odd and equal lengths, decode and cross shapes. The emulated
  // fragments run the long case with 250 query rows (4 workgroups of 64 per head) instead of 1000,
  // a quarter of its work, to keep CI short.
  const int emulatedRows = path == Path::CoopmatEmulated ? 250 : 1000;
  for (auto [hq, hkv, lq, lk, dk, dv] :
       {std::tuple{4, 4, 113, 113, 64, 64}, std::tuple{8, 2, emulatedRows, 1000, 128, 128},
        std::tuple{4, 1, 7, 1000, 16, 16}, std::tuple{2, 2, 64, 64, 256, 256}, std::tuple{4, 2, 1, 777, 80, 80},
        std::tuple{2, 1, 113, 64, 64, 128}}) {
    auto pr = problem(2, hq, hkv, lq, lk, dk, dv);
    SCOPED_TRACE("Hq " + std::to_string(hq) + " Hkv " + std::to_string(hkv) + " Lq " + std::to_string(lq) + " Lk " +
                 std::to_string(lk) + " D " + std::to_string(dk) + "/" + std::to_string(dv));
    Inputs in = makeInputs(ctx(), pr, DType::F16, seed += 10);
    check(ctx(), path, pr, in, optionsFor(pr), DType::F16);
    pr.causal = true;  // top-left, then bottom-right with a window
    check(ctx(), path, pr, in, optionsFor(pr), DType::F16);
    pr.bottomRight = true;
    pr.windowLeft = 37;
    check(ctx(), path, pr, in, optionsFor(pr), DType::F16);
  }
  // Key lengths (one batch all padding), bias with -inf, keep mask with a fully masked row, at once.
  auto pr = problem(3, 4, 2, 50, 66, 64, 64);
  std::vector<int32_t> lens = {66, 17, 0};
  Tensor tlens = Tensor::fromHostInt(ctx().device(), {3}, lens);
  pr.keyLengths = &lens;
  auto bias = randomValues(3 * 50 * 66, 91, -2.0f, 2.0f);
  for (std::size_t i = 0; i < bias.size(); i += 7) bias[i] = kNegInf;
  Tensor tbias = ctx().tensor({3, 1, 50, 66}, bias);
  pr.bias = &bias;
  pr.biasDims[0] = 3;
  pr.biasDims[2] = 50;
  std::vector<int32_t> keep(4 * 50 * 66);
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = (i % 5) != 2 && i >= 66;  // row 0 of head 0: no key
  Tensor tkeep = Tensor::fromHostInt(ctx().device(), {1, 4, 50, 66}, keep);
  pr.keep = &keep;
  pr.keepDims[1] = 4;
  pr.keepDims[2] = 50;
  Inputs in = makeInputs(ctx(), pr, DType::F16, 92);
  AttentionOptions o = optionsFor(pr);
  o.keyLengths = tlens.view();
  o.bias = tbias.view();
  o.keepMask = tkeep.view();
  check(ctx(), path, pr, in, o, DType::F16);
  // Large logits: the online softmax must not overflow. v is drawn in [-30, 30] too, and P is
  // rounded to f16 (relative 2^-11) before PV, so absolute errors reach ~30 x 5e-4.
  auto big = problem(1, 2, 2, 200, 300, 64, 64);
  Inputs large = makeInputs(ctx(), big, DType::F16, 93, 30.0f);
  check(ctx(), path, big, large, optionsFor(big), DType::F16, 30.0);
}

TEST_P(Attention, F16Storage) {
  auto pr = problem(2, 4, 2, 45, 77, 64, 64);
  pr.causal = true;
  checkAll(ctx(), paths(), pr, 80, DType::F16);
  checkAll(ctx(), paths(), problem(1, 2, 1, 16, 33, 32, 64), 90, DType::F16);
}

TEST_P(Attention, BatchSeqHeadLayout) {
  // Tensors stored [B, L, H, D] (and the output too), seen as [B, H, L, D] through permuted views.
  auto pr = problem(2, 4, 2, 27, 35, 32, 48);
  pr.causal = true;
  auto ref = [&] {
    Inputs in;
    in.q = stored(randomValues(2 * 4 * 27 * 32, 91));
    in.k = stored(randomValues(2 * 2 * 35 * 32, 92));
    in.v = stored(randomValues(2 * 2 * 35 * 48, 93));
    return in;
  }();
  // Host data in [B, H, L, D] for the reference; transpose to [B, L, H, D] for the device.
  auto toBLHD = [](const std::vector<float>& x, std::size_t B, std::size_t H, std::size_t L, std::size_t D) {
    std::vector<float> y(x.size());
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t l = 0; l < L; ++l)
          for (std::size_t d = 0; d < D; ++d) y[((b * L + l) * H + h) * D + d] = x[((b * H + h) * L + l) * D + d];
    return y;
  };
  Tensor tq = ctx().tensor({2, 27, 4, 32}, toBLHD(ref.q, 2, 4, 27, 32), storage());
  Tensor tk = ctx().tensor({2, 35, 2, 32}, toBLHD(ref.k, 2, 2, 35, 32), storage());
  Tensor tv = ctx().tensor({2, 35, 2, 48}, toBLHD(ref.v, 2, 2, 35, 48), storage());
  const AttentionResult expected = attentionRef(pr, ref.q, ref.k, ref.v);
  const auto expectedBLHD = [&] {
    std::vector<double> y(expected.out.size());
    for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t h = 0; h < 4; ++h)
        for (std::size_t l = 0; l < 27; ++l)
          for (std::size_t d = 0; d < 48; ++d)
            y[((b * 27 + l) * 4 + h) * 48 + d] = expected.out[((b * 4 + h) * 27 + l) * 48 + d];
    return y;
  }();
  for (Path path : paths()) {
    SCOPED_TRACE(pathName(path));
    Tensor out = ctx().tensor({2, 27, 4, 48}, storage());
    AttentionOptions o = optionsFor(pr);
    const TensorView oView = out.view().permuted({0, 2, 1, 3});
    if (path == Path::Naive) {
      attentionNaive(ctx(), tq.view().permuted({0, 2, 1, 3}), tk.view().permuted({0, 2, 1, 3}),
                     tv.view().permuted({0, 2, 1, 3}), oView, o);
    } else {
      o.variant = variantOf(path);
      attention(ctx(), tq.view().permuted({0, 2, 1, 3}), tk.view().permuted({0, 2, 1, 3}),
                tv.view().permuted({0, 2, 1, 3}), oView, o);
    }
    EXPECT_TRUE(allClose(out.download(), expectedBLHD, atol(), rtol()));
  }
}

TEST_P(Attention, UnalignedViewsIntoOnePackedBuffer) {
  // q, k, v as views into one packed [B, L, 1 + 3 * H * D + 1] buffer: row stride 98 and odd offsets,
  // so K/V rows are not 16-byte aligned and the kernels take their scalar-load path.
  const int64_t B = 2, L = 19, H = 2, D = 16, row = 1 + 3 * H * D + 1;
  auto packed = stored(randomValues(static_cast<std::size_t>(B * L * row), 170));
  Tensor buffer = ctx().tensor({B, L, row}, packed, storage());
  auto view = [&](int64_t offset) {
    return TensorView{&buffer.buffer(), storage(), {B, H, L, D}, {L * row, D, row, 1}, offset};
  };
  std::vector<float> q, k, v;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t l = 0; l < L; ++l)
        for (int64_t d = 0; d < D; ++d) {
          const auto at = [&](int64_t part) {
            return packed[static_cast<std::size_t>((b * L + l) * row + 1 + part * H * D + h * D + d)];
          };
          q.push_back(at(0));
          k.push_back(at(1));
          v.push_back(at(2));
        }
  auto pr = problem(B, H, H, L, L, D, D);
  pr.causal = true;
  const AttentionResult ref = attentionRef(pr, q, k, v);
  for (Path path : paths()) {
    SCOPED_TRACE(pathName(path));
    AttentionOptions o = optionsFor(pr);
    Tensor out;
    if (path == Path::Naive) {
      out = attentionNaive(ctx(), view(1), view(1 + H * D), view(1 + 2 * H * D), o);
    } else if (path == Path::Decode) {  // reads whole 16-byte words only: refused by name
      o.variant = variantOf(path);
      try {
        attention(ctx(), view(1), view(1 + H * D), view(1 + 2 * H * D), o);
        ADD_FAILURE() << "the decode kernel read unaligned K/V rows";
      } catch (const Unsupported& e) {
        EXPECT_NE(std::string(e.what()).find("start at multiples"), std::string::npos) << e.what();
      }
      continue;
    } else {
      o.variant = variantOf(path);
      out = attention(ctx(), view(1), view(1 + H * D), view(1 + 2 * H * D), o);
    }
    EXPECT_TRUE(allClose(out.download(), ref.out, atol(), rtol()));
  }
}

TEST_P(Attention, OutputViewsIntoALargerBuffer) {
  // q, k, v contiguous; the output a strided view into a larger zeroed buffer, once with rows at
  // multiples of 4 elements (offset 4, row stride D + 4: the rows kernel's vec4 stores) and once
  // not (offset 1, row stride D + 3: its scalar stores). The viewed elements must match the
  // reference and every element outside the view must stay zero.
  const int64_t B = 2, H = 2, Lq = 29, Lk = 41, D = 32;
  auto pr = problem(B, H, H, Lq, Lk, D, D);
  Inputs in = makeInputs(ctx(), pr, storage(), 171);
  const AttentionResult ref = attentionRef(pr, in.q, in.k, in.v);
  for (const auto& [offset, stride] : {std::pair<int64_t, int64_t>{4, D + 4}, {1, D + 3}}) {
    const int64_t elements = offset + B * H * Lq * stride;
    for (Path path : paths()) {
      SCOPED_TRACE(std::string(pathName(path)) + ", output offset " + std::to_string(offset));
      Tensor buffer = ctx().tensor({elements}, std::vector<float>(static_cast<std::size_t>(elements), 0.0f), storage());
      const TensorView out{
          &buffer.buffer(), storage(), {B, H, Lq, D}, {H * Lq * stride, Lq * stride, stride, 1}, offset};
      AttentionOptions o = optionsFor(pr);
      if (path == Path::Naive) {
        attentionNaive(ctx(), in.tq.view(), in.tk.view(), in.tv.view(), out, o);
      } else {
        o.variant = variantOf(path);
        attention(ctx(), in.tq.view(), in.tk.view(), in.tv.view(), out, o);
      }
      const std::vector<float> all = buffer.download();
      std::vector<float> viewed;
      std::vector<bool> inView(all.size(), false);
      for (int64_t row = 0; row < B * H * Lq; ++row)
        for (int64_t d = 0; d < D; ++d) {
          const auto at = static_cast<std::size_t>(offset + row * stride + d);
          viewed.push_back(all[at]);
          inView[at] = true;
        }
      EXPECT_TRUE(allClose(viewed, ref.out, atol(), rtol()));
      std::size_t touched = 0;
      for (std::size_t x = 0; x < all.size(); ++x) touched += !inView[x] && all[x] != 0.0f;
      EXPECT_EQ(touched, 0u) << "elements outside the output view were written";
    }
  }
}

TEST_P(Attention, LargeLogitsStayFinite) {
  // |logits| up to ~ 30 * 30 * 64: the running max must keep exp() in range.
  auto pr = problem(1, 2, 1, 31, 90, 64, 64);
  pr.scale = 1.0;
  Inputs in = makeInputs(ctx(), pr, storage(), 95, 30.0f);
  for (Path path : paths()) {
    AttentionProblem scaled = pr;
    // v was drawn in [-30, 30] too; tolerances scale with it.
    const AttentionResult ref = attentionRef(scaled, in.q, in.k, in.v);
    AttentionOptions o = optionsFor(pr);
    if (path != Path::Naive) o.variant = variantOf(path);
    Tensor out =
        path == Path::Naive ? attentionNaive(ctx(), in.tq, in.tk, in.tv, o) : attention(ctx(), in.tq, in.tk, in.tv, o);
    EXPECT_TRUE(allClose(out.download(), ref.out, 30 * atol(), rtol())) << pathName(path);
  }
}

TEST_P(Attention, LongKeyRange) {
  // 16384 keys at head dim 64: 16384 * 16 vec4 steps would be far past llvmpipe's 65535-iteration
  // limit if the head-dim loops were not unrolled; the key loop itself runs Lk / KEY_BLOCK times.
  auto pr = problem(1, 2, 1, 8, 16384, 64, 64);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 99);
  for (Path path : paths(false)) check(ctx(), path, pr, in, optionsFor(pr), DType::F32);
  pr.causal = true;
  pr.bottomRight = true;
  check(ctx(), paths(false)[0], pr, in, optionsFor(pr), DType::F32);
}

TEST_P(Attention, KeysPastOneKeyPerStepLimit) {
  // 70000 keys: more than llvmpipe lets one invocation loop, so the rows kernel steps 4 keys at a
  // time; the tiled kernel loops 70000 / 16 * 5 times.
  auto pr = problem(1, 1, 1, 5, 70000, 16, 16);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 120);
  for (Path path : paths(false)) check(ctx(), path, pr, in, optionsFor(pr), DType::F32);
}

TEST_F(VkattnTest, AttentionRowsKernelPrefillBlock) {
  // Prefill-sized problems (at least 2^23 query/key pairs, head dims up to 64) get the rows
  // kernel's larger register block on CPU drivers: 8 rows per invocation, 2 keys per step. Odd
  // lengths (a key block straddles the end), GQA, Dk != Dv; then f16 storage; then bottom-right
  // causal with a window and an odd key length per batch.
  auto pr = problem(2, 4, 2, 1037, 1029, 64, 40);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 130);
  check(ctx(), Path::Rows, pr, in, optionsFor(pr), DType::F32);
  Inputs half = makeInputs(ctx(), pr, DType::F16, 131);
  check(ctx(), Path::Rows, pr, half, optionsFor(pr), DType::F16);

  std::vector<int32_t> lens = {1029, 777};
  Tensor tlens = Tensor::fromHostInt(ctx().device(), {2}, lens);
  pr.keyLengths = &lens;
  pr.causal = true;
  pr.bottomRight = true;
  pr.windowLeft = 301;
  AttentionOptions o = optionsFor(pr);
  o.keyLengths = tlens.view();
  check(ctx(), Path::Rows, pr, in, o, DType::F32);
}

// Default options written as braces pick the overload that returns the output (the one that
// writes into a view takes its options explicitly).
TEST_F(VkattnTest, AttentionWithBracedDefaultOptions) {
  auto pr = problem(1, 2, 2, 5, 9, 16, 16);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 120);
  const Tensor out = attention(ctx(), in.tq, in.tk, in.tv, {});
  EXPECT_TRUE(allClose(out.download(), attentionRef(pr, in.q, in.k, in.v).out, kAtolF32, kRtolF32));
}

TEST_F(VkattnTest, AttentionWeightsMatchReferenceProbabilities) {
  auto pr = problem(2, 4, 2, 13, 29, 32, 32);
  pr.causal = true;
  Inputs in = makeInputs(ctx(), pr, DType::F32, 110);
  const AttentionResult ref = attentionRef(pr, in.q, in.k, in.v);
  Tensor w = attentionWeights(ctx(), in.tq, in.tk, {3, 1}, optionsFor(pr));
  ASSERT_EQ(w.shape(), (Shape{2, 2, 13, 29}));
  std::vector<double> expected;
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t h : {3u, 1u})
      for (std::size_t x = 0; x < 13 * 29; ++x) expected.push_back(ref.probs[(b * 4 + h) * 13 * 29 + x]);
  EXPECT_TRUE(allClose(w.download(), expected, kWeights.atol, kWeights.rtol));
}

TEST_F(VkattnTest, AttentionVariantFollowsProfileAndEnvironment) {
  ::unsetenv("VKATTN_ATTENTION_VARIANT");
  const AttentionVariant byProfile =
      ctx().profile() == KernelProfile::CpuDriver ? AttentionVariant::Rows : AttentionVariant::Tiled;
  EXPECT_EQ(resolveAttentionVariant(ctx(), AttentionVariant::Auto), byProfile);
  ::setenv("VKATTN_ATTENTION_VARIANT", "tiled", 1);
  EXPECT_EQ(resolveAttentionVariant(ctx(), AttentionVariant::Auto), AttentionVariant::Tiled);
  EXPECT_EQ(resolveAttentionVariant(ctx(), AttentionVariant::Rows), AttentionVariant::Rows);  // explicit wins
  ::setenv("VKATTN_ATTENTION_VARIANT", "cpu", 1);
  EXPECT_EQ(resolveAttentionVariant(ctx(), AttentionVariant::Auto), AttentionVariant::Rows);
  ::setenv("VKATTN_ATTENTION_VARIANT", "coopmat", 1);
  EXPECT_EQ(resolveAttentionVariant(ctx(), AttentionVariant::Auto), AttentionVariant::Coopmat);
  ::setenv("VKATTN_ATTENTION_VARIANT", "coopmat-emulated", 1);
  EXPECT_EQ(resolveAttentionVariant(ctx(), AttentionVariant::Auto), AttentionVariant::CoopmatEmulated);
  ::setenv("VKATTN_ATTENTION_VARIANT", "fastest", 1);
  EXPECT_THROW(resolveAttentionVariant(ctx(), AttentionVariant::Auto), InvalidArgument);
  ::unsetenv("VKATTN_ATTENTION_VARIANT");
}

// ---- bad input ----

TEST_F(VkattnTest, AttentionRejectsBadShapes) {
  Context& c = ctx();
  Tensor q = c.tensor({1, 6, 8, 64}), k = c.tensor({1, 4, 8, 64}), v = c.tensor({1, 4, 8, 64});
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q, k, v); }), "k");  // 4 kv heads do not divide 6
  Tensor q4 = c.tensor({1, 4, 8, 64}), k32 = c.tensor({1, 4, 8, 32});
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q4, k32, v); }), "k");  // Dk mismatch
  Tensor v3 = c.tensor({1, 2, 8, 64});
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q4, k, v3); }), "v");  // kv heads mismatch
  Tensor q577 = c.tensor({1, 4, 8, 577}), k577 = c.tensor({1, 4, 8, 577});
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q577, k577, v); }), "q");  // head dim past 576
  Tensor v600 = c.tensor({1, 4, 8, 600});
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q4, k, v600); }), "v");  // Dv past 576
  Tensor bias = c.tensor({1, 4, 8, 7});
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q4, k, v, {.bias = bias.view()}); }), "bias");
  Tensor keep = Tensor::fromHostInt(c.device(), {2, 1, 8, 8}, std::vector<int32_t>(128, 1));
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q4, k, v, {.keepMask = keep.view()}); }), "keepMask");
  Tensor keepF = c.tensor({8, 8});
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q4, k, v, {.keepMask = keepF.view()}); }), "keepMask");
  Tensor lse = c.tensor({1, 4, 7});
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q4, k, v, {.lse = lse.view()}); }), "lse");
  Tensor lses = c.tensor({2, 4, 8});  // its second half: the kernels write an lse from element 0
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q4, k, v, {.lse = lses.view().sliced(0, 1, 1)}); }), "lse");
  Tensor out = c.tensor({1, 4, 8, 32});
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q4, k, v, out, {}); }), "out");
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q4, k, v, {.windowLeft = -1}); }), "windowLeft");
  Tensor q16 = c.tensor({1, 4, 8, 64}, std::vector<float>(2048, 0.0f), DType::F16);
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q16, k, v); }), "k");  // dtype mismatch
}

TEST_P(Attention, ReportsNaNByArgument) {
  Context& c = ctx();
  for (int64_t lq : {8, 12}) {  // 8 rows: the rows kernel's decode mode; 12: its row-block mode
    const std::size_t n = static_cast<std::size_t>(2 * lq * 32);
    for (const char* which : {"q", "k", "v", "bias"}) {
      for (Path path : paths()) {
        SCOPED_TRACE(std::string(which) + " " + pathName(path) + " lq " + std::to_string(lq));
        auto q = randomValues(n, 1), k = randomValues(n, 2), v = randomValues(n, 3);
        auto b = randomValues(static_cast<std::size_t>(lq * lq), 4);
        const std::string w = which;
        (w == "q" ? q : w == "k" ? k : w == "v" ? v : b)[5] = std::nanf("");
        Tensor tq = c.tensor({1, 2, lq, 32}, q, storage()), tk = c.tensor({1, 2, lq, 32}, k, storage());
        Tensor tv = c.tensor({1, 2, lq, 32}, v, storage());
        Tensor tb = c.tensor({lq, lq}, b);
        AttentionOptions o;
        o.bias = tb.view();
        if (path == Path::Naive) {
          EXPECT_EQ(invalidArgumentOf([&] { attentionNaive(c, tq, tk, tv, o); }), w);
        } else {
          o.variant = variantOf(path);
          EXPECT_EQ(invalidArgumentOf([&] { attention(c, tq, tk, tv, o); }), w);
        }
      }
    }
  }
}

TEST_F(VkattnTest, AttentionTiledHeadDimSplitBlamesTheRightInput) {
  // Head dim 256: the tiled kernel spreads each row over 8 lanes. A NaN in a q word held by lane 5
  // reaches every lane's score; the lanes must agree that q, not k, holds it.
  Context& c = ctx();
  for (const char* which : {"q", "k", "v"}) {
    SCOPED_TRACE(which);
    const std::size_t n = 2 * 9 * 256;
    auto q = randomValues(n, 11), k = randomValues(n, 12), v = randomValues(n, 13);
    const std::string w = which;
    (w == "q" ? q : w == "k" ? k : v)[256 * 3 + 4 * 5 + 1] = std::nanf("");
    Tensor tq = c.tensor({1, 2, 9, 256}, q), tk = c.tensor({1, 2, 9, 256}, k), tv = c.tensor({1, 2, 9, 256}, v);
    EXPECT_EQ(invalidArgumentOf([&] { attention(c, tq, tk, tv, {.variant = AttentionVariant::Tiled}); }), w);
  }
}

TEST_F(VkattnTest, AttentionSplitsKeyRangesPastTheLoopLimit) {
  // 4 * 65535 + 8 keys: even 4 keys per step is past llvmpipe's loop limit, so the rows kernel must
  // split the keys; the tiled kernel (no split-K) refuses. 9 query rows: past the decode mode,
  // whose lanes would share the keys.
  auto pr = problem(1, 1, 1, 9, 4 * 65535 + 8, 16, 16);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 130);
  check(ctx(), Path::Rows, pr, in, optionsFor(pr), DType::F32);
  if (ctx().info().loopIterationLimit == 0) return;
  AttentionOptions o = optionsFor(pr);
  o.variant = AttentionVariant::Tiled;
  EXPECT_THROW(attention(ctx(), in.tq, in.tk, in.tv, o), Unsupported);
  o.variant = AttentionVariant::Rows;
  o.keySplits = 1;
  EXPECT_EQ(invalidArgumentOf([&] { attention(ctx(), in.tq, in.tk, in.tv, o); }), "keySplits");
}

TEST_F(VkattnTest, AttentionDecodeFewQueryRows) {
  // 1..8 query rows against a long KV cache (bottom-right causal): the rows kernel's decode mode
  // (lanes share rows, split keys; automatic key splits on top), GQA 4:1, f32 and f16.
  for (std::size_t lq : {1u, 3u, 8u}) {
    SCOPED_TRACE("lq " + std::to_string(lq));
    auto pr = problem(2, 8, 2, lq, 3000, 64, 64);
    pr.causal = true;
    pr.bottomRight = true;
    Inputs in = makeInputs(ctx(), pr, DType::F32, 150 + lq);
    check(ctx(), Path::Rows, pr, in, optionsFor(pr), DType::F32);
    check(ctx(), Path::Tiled, pr, in, optionsFor(pr), DType::F32);
  }
  auto pr = problem(1, 4, 1, 1, 5000, 64, 64);
  check(ctx(), Path::Rows, pr, makeInputs(ctx(), pr, DType::F16, 160), optionsFor(pr), DType::F16);
}

TEST_F(VkattnTest, AttentionExplicitKeySplitsWithMasks) {
  // Splits that see no key for some rows (causal, padding) must merge to the unsplit result: the
  // rows kernel, and the fragment kernel (emulated where fragments cannot run on hardware) over
  // 40 query rows (blocks of 16 rows per subgroup, some past Lq).
  auto pr = problem(2, 4, 2, 40, 113, 64, 64);
  pr.causal = true;
  pr.bottomRight = true;
  pr.windowLeft = 50;
  std::vector<int32_t> lens = {100, 0};
  Tensor tlens = Tensor::fromHostInt(ctx().device(), {2}, lens);
  pr.keyLengths = &lens;
  for (DType dtype : {DType::F32, DType::F16}) {
    Inputs in = makeInputs(ctx(), pr, dtype, 140);
    for (uint32_t splits : dtype == DType::F32 ? std::vector<uint32_t>{2, 3, 16} : std::vector<uint32_t>{3}) {
      SCOPED_TRACE("splits " + std::to_string(splits));
      AttentionOptions o = optionsFor(pr);
      o.keyLengths = tlens.view();
      o.keySplits = splits;
      check(ctx(), Path::Rows, pr, in, o, dtype);
      if (emulatedFragmentsRun(ctx())) check(ctx(), Path::CoopmatEmulated, pr, in, o, dtype);
    }
  }
  AttentionOptions tiled = optionsFor(pr);
  tiled.variant = AttentionVariant::Tiled;
  tiled.keySplits = 2;
  Inputs in = makeInputs(ctx(), pr, DType::F32, 141);
  EXPECT_EQ(invalidArgumentOf([&] { attention(ctx(), in.tq, in.tk, in.tv, tiled); }), "keySplits");
}

TEST(AttentionSplits, EverySplitCountSharesOneCombinePipeline) {
  // The split count is a push constant of the combine kernel: a decode whose count grows with the
  // cache builds its combine pipeline once, not once per count.
  Context fresh;
  auto pr = problem(1, 2, 2, 3, 97, 32, 32);
  Inputs in = makeInputs(fresh, pr, DType::F32, 150);
  for (uint32_t splits : {2u, 3u, 5u, 7u}) {
    SCOPED_TRACE("splits " + std::to_string(splits));
    AttentionOptions o = optionsFor(pr);
    o.variant = AttentionVariant::Rows;
    o.keySplits = splits;
    check(fresh, Path::Rows, pr, in, o, DType::F32);
  }
  int combines = 0;
  for (const Pipeline* pipeline : fresh.pipelines().all())
    combines += pipeline->name().rfind("attention_combine", 0) == 0;
  EXPECT_EQ(combines, 1);
}

}  // namespace
}  // namespace vkattn::test
