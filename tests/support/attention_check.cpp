#include "support/attention_check.hpp"

#include <cmath>
#include <iostream>
#include <map>

#include "support/compare.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/device_parallelism.hpp"
#include "vkattn/reference/error_stats.hpp"
#include "vkattn/reference/paged_cache.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

// Worst output error per path and dtype over the whole program, printed at the end.
struct ErrorLog : ::testing::Environment {
  std::map<std::string, double> worst;
  void TearDown() override {
    for (const auto& [name, err] : worst) std::cout << "[attention] worst |out - ref| " << name << ": " << err << "\n";
  }
};
ErrorLog* const g_log = static_cast<ErrorLog*>(::testing::AddGlobalTestEnvironment(new ErrorLog));

}  // namespace

const reference::Tolerance kWeights = toleranceFor(Checked::AttentionWeights, DType::F32);

const double kAtolF32 = toleranceFor(Checked::Attention, DType::F32).atol,
             kRtolF32 = toleranceFor(Checked::Attention, DType::F32).rtol;
const double kAtolF16 = toleranceFor(Checked::Attention, DType::F16).atol,
             kRtolF16 = toleranceFor(Checked::Attention, DType::F16).rtol;
const double kAtolLse = toleranceFor(Checked::AttentionLse, DType::F32).atol,
             kRtolLse = toleranceFor(Checked::AttentionLse, DType::F32).rtol;
const char* pathName(Path p) {
  switch (p) {
    case Path::Rows:
      return "rows";
    case Path::Tiled:
      return "tiled";
    case Path::Naive:
      return "naive";
    case Path::Coopmat:
      return "coopmat";
    case Path::CoopmatEmulated:
      return "coopmat-emulated";
    case Path::Coopmat2:
      return "coopmat2";
    case Path::Coopmat2Workgroup:
      return "coopmat2-wg";
    case Path::Decode:
      return "decode";
  }
  return "?";
}
AttentionVariant variantOf(Path p) {
  switch (p) {
    case Path::Rows:
      return AttentionVariant::Rows;
    case Path::Coopmat:
      return AttentionVariant::Coopmat;
    case Path::CoopmatEmulated:
      return AttentionVariant::CoopmatEmulated;
    case Path::Coopmat2:
      return AttentionVariant::Coopmat2;
    case Path::Coopmat2Workgroup:
      return AttentionVariant::Coopmat2Workgroup;
    case Path::Decode:
      return AttentionVariant::Decode;
    default:
      return AttentionVariant::Tiled;
  }
}

std::string familyName(Family f) {
  switch (f) {
    case Family::Fused:
      return "fused";
    case Family::Coopmat:
      return "kernel_coopmat";
    case Family::CoopmatEmulated:
      return "kernel_coopmat_emulated";
    case Family::Coopmat2:
      return "kernel_coopmat2";
    case Family::Coopmat2Workgroup:
      return "kernel_coopmat2_wg";
    case Family::Decode:
      return "kernel_decode";
  }
  return "?";
}

bool onMatrixUnits(Path p) {
  return p == Path::Coopmat || p == Path::Coopmat2 || p == Path::Coopmat2Workgroup;
}

bool emulatedFragmentsRun(const Context& ctx) {
  const DeviceInfo& i = ctx.info();
  return i.subgroupSize == 8 && i.minSubgroupSize == i.maxSubgroupSize && i.subgroupShuffle;
}

std::string familySkipReason(const Context& ctx, Family family) {
  if (family == Family::CoopmatEmulated && !emulatedFragmentsRun(ctx))
    return "the emulated fragments need fixed 8-lane subgroups with shuffles";
  if (family == Family::Coopmat && !ctx.info().cooperativeMatrixF16)
    return "no cooperative-matrix kernel runs here: " + coopmatChoiceFor(ctx.info()).reason;
  if (family == Family::Coopmat2 && !coopmat2ChoiceFor(ctx.info()).usable)
    return "the cooperative-matrix-2 kernel cannot run here: " + coopmat2ChoiceFor(ctx.info()).reason;
  if (family == Family::Coopmat2Workgroup && !coopmat2WorkgroupChoiceFor(ctx.info()).usable)
    return "the workgroup-scope cooperative-matrix-2 kernel cannot run here: " +
           coopmat2WorkgroupChoiceFor(ctx.info()).reason;
  if (family == Family::Decode && (!laneSplitSubgroup(ctx.info()).size || !ctx.info().subgroupShuffle))
    return "the decode kernel needs a fixed or required subgroup size with arithmetic and shuffles";
  return "";
}

std::vector<Path> pathsOf(Family family, bool naive) {
  if (family == Family::CoopmatEmulated) return {Path::CoopmatEmulated};
  if (family == Family::Coopmat) return {Path::Coopmat};
  if (family == Family::Coopmat2) return {Path::Coopmat2};
  if (family == Family::Coopmat2Workgroup) return {Path::Coopmat2Workgroup};
  if (family == Family::Decode) return {Path::Decode};
  if (naive) return {Path::Rows, Path::Tiled, Path::Naive};
  return {Path::Rows, Path::Tiled};
}

Inputs makeInputs(Context& ctx, const AttentionProblem& pr, DType dtype, uint64_t seed, float range) {
  Inputs in;
  auto gen = [&](std::size_t n, uint64_t s) {
    auto x = randomValues(n, s, -range, range);
    return dtype == DType::F16 ? roundToHalf(x) : x;
  };
  in.q = gen(pr.batch * pr.headsQ * pr.lq * pr.dk, seed);
  in.k = gen(pr.batch * pr.headsKv * pr.lk * pr.dk, seed + 1);
  in.v = gen(pr.batch * pr.headsKv * pr.lk * pr.dv, seed + 2);
  auto i64 = [](std::size_t x) { return static_cast<int64_t>(x); };
  in.tq = ctx.tensor({i64(pr.batch), i64(pr.headsQ), i64(pr.lq), i64(pr.dk)}, in.q, dtype);
  in.tk = ctx.tensor({i64(pr.batch), i64(pr.headsKv), i64(pr.lk), i64(pr.dk)}, in.k, dtype);
  in.tv = ctx.tensor({i64(pr.batch), i64(pr.headsKv), i64(pr.lk), i64(pr.dv)}, in.v, dtype);
  return in;
}

AttentionOptions optionsFor(const AttentionProblem& pr) {
  AttentionOptions o;
  o.scale = static_cast<float>(pr.scale);
  o.causal = pr.causal;
  o.alignment = !pr.bottomRight        ? MaskAlignment::TopLeft
                : pr.alignToKeyLengths ? MaskAlignment::BottomRightOfKeyLengths
                                       : MaskAlignment::BottomRight;
  o.windowLeft = pr.windowLeft;
  o.windowRight = pr.windowRight;
  o.softcap = static_cast<float>(pr.softcap);
  return o;
}

std::vector<double> finiteLse(std::vector<double> x) {
  for (auto& e : x)
    if (std::isinf(e)) e = -1e30;
  return x;
}
std::vector<float> finiteLse(std::vector<float> x) {
  for (auto& e : x)
    if (std::isinf(e)) e = -1e30f;
  return x;
}

void check(Context& ctx, Path path, const AttentionProblem& pr, const Inputs& in, AttentionOptions o, DType dtype,
           double valueRange) {
  if (onMatrixUnits(path) && dtype == DType::F32) {
    // The matrix units take f16: the same case on f16-rounded copies, to the f16 tolerance.
    ASSERT_FALSE(in.kRead || in.vRead) << "the cooperative-matrix kernel reads dense K/V only";
    Inputs half;
    half.q = roundToHalf(in.q);
    half.k = roundToHalf(in.k);
    half.v = roundToHalf(in.v);
    half.tq = ctx.tensor(in.tq.shape(), half.q, DType::F16);
    half.tk = ctx.tensor(in.tk.shape(), half.k, DType::F16);
    half.tv = ctx.tensor(in.tv.shape(), half.v, DType::F16);
    check(ctx, path, pr, half, o, DType::F16, valueRange);
    return;
  }
  SCOPED_TRACE(std::string("path ") + pathName(path) + ", dtype " + toString(dtype));
  const AttentionResult ref = attentionRef(pr, in.q, in.k, in.v);
  Tensor lse;
  Tensor out;
  if (path == Path::Naive) {
    out = attentionNaive(ctx, in.tq, in.tk, in.tv, o);
  } else {
    o.variant = variantOf(path);
    lse = ctx.tensor({static_cast<int64_t>(pr.batch), static_cast<int64_t>(pr.headsQ), static_cast<int64_t>(pr.lq)});
    o.lse = lse.view();
    out = attention(ctx, in.tq, in.kRead ? *in.kRead : in.tk.view(), in.vRead ? *in.vRead : in.tv.view(), o);
  }
  const bool f16 = dtype == DType::F16;
  const auto got = out.download();
  const double atol = (f16 ? kAtolF16 : kAtolF32) * valueRange;
  const ErrorStats stats = compare(got, ref.out, atol, f16 ? kRtolF16 : kRtolF32);
  double& worst = g_log->worst[std::string(pathName(path)) + " " + toString(dtype)];
  worst = std::max(worst, stats.maxAbs);
  EXPECT_TRUE(allClose(got, ref.out, atol, f16 ? kRtolF16 : kRtolF32));
  if (path != Path::Naive) {
    EXPECT_TRUE(allClose(finiteLse(lse.download()), finiteLse(ref.lse), kAtolLse, kRtolLse)) << "lse";
  }
}

void storeKvAs(Context& ctx, Inputs& in, DType format) {
  in.tk = ctx.tensor(in.tk.shape(), in.k, format);
  in.tv = ctx.tensor(in.tv.shape(), in.v, format);
  in.k = in.tk.download();
  in.v = in.tv.download();
}

void addHeadTerms(Context& ctx, AttentionProblem& pr, AttentionOptions& o, HeadTerms& t, bool sinks, bool alibi,
                  bool alibiPerBatch) {
  const auto hq = static_cast<int64_t>(pr.headsQ), b = static_cast<int64_t>(pr.batch);
  if (sinks) {
    t.sinks = randomValues(pr.headsQ, 77, -2.0f, 3.0f);
    t.tSinks = ctx.tensor({hq}, t.sinks);
    pr.sinks = &t.sinks;
    o.sinks = t.tSinks.view();
  }
  if (alibi) {
    const int64_t n = alibiPerBatch ? b * hq : hq;
    for (int64_t x = 0; x < n; ++x)
      t.slopes.push_back(std::exp2(-8.0f * static_cast<float>(x % hq + 1) / static_cast<float>(hq)) *
                         (1.0f + 0.25f * static_cast<float>(x / hq)));
    t.tSlopes = alibiPerBatch ? ctx.tensor({b, hq}, t.slopes) : ctx.tensor({hq}, t.slopes);
    pr.alibiSlopes = &t.slopes;
    pr.alibiPerBatch = alibiPerBatch;
    o.alibiSlopes = t.tSlopes.view();
  }
}

// A paged copy of `in`'s dense K/V (reference::pageCache: shuffled blocks, three spare ones of
// large values that must never be read), read through in.kRead / in.vRead; returns the i32
// [B, maxBlocks] block table.
Tensor pageInputs(Context& ctx, const AttentionProblem& pr, Inputs& in, std::size_t blockSize, DType dtype,
                  uint64_t seed) {
  auto upload = [&](const std::vector<float>& dense, std::size_t d) {
    const PagedCache paged = pageCache(dense, pr.batch, pr.headsKv, pr.lk, d, blockSize, 3, 900.0f, seed);
    Tensor t = ctx.tensor({static_cast<int64_t>(paged.numBlocks), static_cast<int64_t>(blockSize),
                           static_cast<int64_t>(pr.headsKv), static_cast<int64_t>(d)},
                          paged.cache, dtype);
    return std::pair{std::move(t), paged.table};
  };
  const std::vector<int> bhld = {0, 2, 1, 3};
  auto [tk, table] = upload(in.k, pr.dk);
  in.tk = std::move(tk);
  in.tv = upload(in.v, pr.dv).first;
  in.kRead = in.tk.view().permuted(bhld);
  in.vRead = in.tv.view().permuted(bhld);
  return Tensor::fromHostInt(ctx.device(), {static_cast<int64_t>(pr.batch), static_cast<int64_t>(pr.lk / blockSize)},
                             table);
}

void checkAll(Context& ctx, const std::vector<Path>& paths, const AttentionProblem& pr, uint64_t seed, DType dtype) {
  Inputs in = makeInputs(ctx, pr, dtype, seed);
  for (Path path : paths) check(ctx, path, pr, in, optionsFor(pr), dtype);
}

AttentionProblem problem(std::size_t b, std::size_t hq, std::size_t hkv, std::size_t lq, std::size_t lk, std::size_t dk,
                         std::size_t dv) {
  AttentionProblem pr;
  pr.batch = b;
  pr.headsQ = hq;
  pr.headsKv = hkv;
  pr.lq = lq;
  pr.lk = lk;
  pr.dk = dk;
  pr.dv = dv;
  pr.scale = 1.0 / std::sqrt(static_cast<double>(dk));
  return pr;
}

}  // namespace vkattn::test
