#include "vkattn/ops/rope.hpp"

#include <kernel_interface.h>
#include <push_constants.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "op_row_definition.hpp"
#include "rope_append_plan.hpp"
#include "row_kernel.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

constexpr uint32_t kRopeWorkgroup = 64;

struct RopePlan {
  pc::RopeParams params{};
  const Buffer* positions = nullptr;
};

RopePlan planRope(Context& ctx, const TensorView& x, const TensorView& y, const RopeOptions& o,
                  const std::string& xName, const std::string& yName) {
  using namespace detail;
  requireTensor(xName, x);
  requireTensor(yName, y);
  requireDtype(xName, x, {DType::F32, DType::F16});
  requireRank(xName, x, 4, 4);
  requireShape(yName, y, x.shape);
  requireSameDtype(yName, y, xName, x);
  requireDtypeSupported(ctx, xName, x);
  requireFitsDevice(ctx, xName, x);
  requireFitsDevice(ctx, yName, y);
  const int64_t headDim = x.dim(3);
  if (headDim % 2 != 0) throw InvalidArgument(xName, "head dim " + std::to_string(headDim) + " must be even");
  for (int i = 0; i < 4; ++i)
    if (i != 3 && x.shape[i] > 1 && x.strides[i] == 0) throw InvalidArgument(xName, "broadcast (zero) strides");
  if (x.strides[3] != 1) throw InvalidArgument(xName, "the head dim must be contiguous (stride 1)");
  if (y.strides[3] != 1) throw InvalidArgument(yName, "the head dim must be contiguous (stride 1)");
  const int64_t rotaryDim = o.rotaryDim == 0 ? headDim : o.rotaryDim;
  if (rotaryDim < 2 || rotaryDim > headDim || rotaryDim % 2 != 0)
    throw InvalidArgument("rotaryDim", std::to_string(o.rotaryDim) + " must be even and in [2, head dim " +
                                           std::to_string(headDim) + "]");
  if (!(o.theta > 1.0) || !std::isfinite(o.theta)) throw InvalidArgument("theta", "must be a finite value > 1");
  if (!o.frequencyDivisors.empty() && static_cast<int64_t>(o.frequencyDivisors.size()) != rotaryDim / 2)
    throw InvalidArgument("frequencyDivisors", std::to_string(o.frequencyDivisors.size()) + " values, expected " +
                                                   std::to_string(rotaryDim / 2) + " (rotaryDim / 2)");
  for (double divisor : o.frequencyDivisors)
    if (!(divisor > 0.0) || !std::isfinite(divisor))
      throw InvalidArgument("frequencyDivisors", "holds " + std::to_string(divisor) + "; each must be finite and > 0");

  RopePlan plan;
  pc::RopeParams& p = plan.params;
  p.batch = detail::checkedU32(xName, x.dim(0));
  p.heads = detail::checkedU32(xName, x.dim(1));
  p.seq = detail::checkedU32(xName, x.dim(2));
  p.headDim = detail::checkedU32(xName, headDim);
  p.rotaryDim = detail::checkedU32("rotaryDim", rotaryDim);
  p.strideB = detail::checkedU32(xName, x.strides[0]);
  p.strideH = detail::checkedU32(xName, x.strides[1]);
  p.strideL = detail::checkedU32(xName, x.strides[2]);
  p.outStrideB = detail::checkedU32(yName, y.strides[0]);
  p.outStrideH = detail::checkedU32(yName, y.strides[1]);
  p.outStrideL = detail::checkedU32(yName, y.strides[2]);
  p.xOffset = detail::checkedU32(xName, x.offset);
  p.outOffset = detail::checkedU32(yName, y.offset);
  p.interleaved = o.interleaved ? 1 : 0;
  if (o.positions) {
    const TensorView& pos = *o.positions;
    requireTensor("positions", pos);
    requireDtype("positions", pos, {DType::I32});
    requireContiguous("positions", pos);
    if (pos.shape == Shape{x.dim(2)}) {
      p.positionMode = 1;
    } else if (pos.shape == Shape{x.dim(0), x.dim(2)}) {
      p.positionMode = 2;
    } else {
      throw InvalidArgument("positions", "shape " + toString(pos.shape) + ", expected [" + std::to_string(x.dim(2)) +
                                             "] or [" + std::to_string(x.dim(0)) + ", " + std::to_string(x.dim(2)) +
                                             "]");
    }
    plan.positions = pos.buffer;
  } else {
    if (o.positionOffset < -(int64_t{1} << 30) || o.positionOffset + x.dim(2) > (int64_t{1} << 30))
      throw InvalidArgument("positionOffset", "positions must stay within +-2^30");
    p.positionMode = 0;
    p.positionOffset = static_cast<int32_t>(o.positionOffset);
  }
  const uint64_t pairs = uint64_t{p.batch} * p.seq * (p.headDim / 2);
  if (pairs > 0xffffffffull) throw Unsupported("argument '" + xName + "': more than 2^32 feature pairs");
  const uint32_t loopLimit = ctx.info().loopIterationLimit;
  if (loopLimit && p.heads >= loopLimit)
    throw Unsupported("argument '" + xName + "': " + std::to_string(p.heads) + " heads exceed what " + ctx.info().name +
                      " can loop over in one invocation");
  return plan;
}

void recordRope(Context& ctx, const TensorView& x, const TensorView& y, RopePlan plan, const Buffer& steps,
                const std::string& xName) {
  // One invocation per (b, l, pair); it loops over the heads.
  const uint64_t pairs = uint64_t{plan.params.batch} * plan.params.seq * (plan.params.headDim / 2);
  const Buffer* positions = plan.positions ? plan.positions : &steps;
  detail::recordOp(
      ctx,
      {detail::shaders::rope.of(x.dtype), ROPE_BINDING_COUNT, SpecConstants().set(SPEC_WORKGROUP_SIZE, kRopeWorkgroup)},
      {{ROPE_BINDING_X, x.buffer},
       {ROPE_BINDING_Y, y.buffer},
       {ROPE_BINDING_PHASE_STEP, &steps},
       {ROPE_BINDING_POSITIONS, positions}},
      plan.params, groupsFor(ctx.device(), pairs, kRopeWorkgroup), {"rope", {xName}, ROPE_BINDING_STATUS});
}

}  // namespace

std::vector<uint32_t> ropePhaseSteps(double theta, int64_t rotaryDim, std::span<const double> divisors) {
  std::vector<uint32_t> words;
  words.reserve(static_cast<std::size_t>(rotaryDim));
  for (int64_t i = 0; i < rotaryDim / 2; ++i) {
    long double invFreq = std::pow(static_cast<long double>(theta), -2.0L * i / rotaryDim);
    if (!divisors.empty()) invFreq /= static_cast<long double>(divisors[static_cast<std::size_t>(i)]);
    // Turns per position step. Whole turns drop out of every phase, so only the fraction is kept
    // (a divisor below 1 can turn a pair more than once a position).
    long double turns = invFreq / (2.0L * std::numbers::pi_v<long double>);
    turns -= std::floor(turns);
    long double scaled = std::ldexp(turns, 32);
    long double high = std::floor(scaled);
    long double low = std::floor(std::ldexp(scaled - high, 32) + 0.5L);
    uint64_t hi = static_cast<uint64_t>(high), lo = static_cast<uint64_t>(low);
    if (lo == (uint64_t{1} << 32)) {  // rounding carried into the high word (and maybe past it)
      lo = 0;
      hi = (hi + 1) & 0xffffffffu;
    }
    words.push_back(static_cast<uint32_t>(hi));
    words.push_back(static_cast<uint32_t>(lo));
  }
  return words;
}

void rope(Context& ctx, const TensorView& x, const TensorView& y, const RopeOptions& options) {
  RopePlan plan = planRope(ctx, x, y, options, "x", "y");
  const Buffer& steps = detail::uploadRopeSteps(ctx, options, plan.params.rotaryDim);
  recordRope(ctx, x, y, plan, steps, "x");
  ctx.flush();
}

Tensor rope(Context& ctx, const TensorView& x, const RopeOptions& options) {
  return detail::allocatingLike(ctx, x, [&](const TensorView& y) { rope(ctx, x, y, options); });
}

void ropeQK(Context& ctx, const TensorView& q, const TensorView& qOut, const TensorView& k, const TensorView& kOut,
            const RopeOptions& options) {
  RopePlan qPlan = planRope(ctx, q, qOut, options, "q", "qOut");
  RopePlan kPlan = planRope(ctx, k, kOut, options, "k", "kOut");
  if (q.dim(0) != k.dim(0) || q.dim(2) != k.dim(2) || q.dim(3) != k.dim(3))
    throw InvalidArgument(
        "k", "shape " + toString(k.shape) + " must match q's " + toString(q.shape) + " in batch, seq and head dim");
  if (q.dtype != k.dtype) throw InvalidArgument("k", "dtype differs from q's");
  Batch batch(ctx);
  const Buffer& steps = detail::uploadRopeSteps(ctx, options, qPlan.params.rotaryDim);
  recordRope(ctx, q, qOut, qPlan, steps, "q");
  recordRope(ctx, k, kOut, kPlan, steps, "k");
  batch.submit();
}

namespace detail {

pc::RopeAppendParams planRopeAppend(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                                    const TensorView& keysOut, const TensorView& valuesOut, const RopeOptions& options,
                                    const std::optional<HeadNorms>& headNorms) {
  requireTensor("k", k);
  requireTensor("keysOut", keysOut);
  requireTensor("valuesOut", valuesOut);
  // Caches longer than the step: each row's key and value land at its position's row, which the
  // positions on the device give (a step recorded once and replayed at every position).
  const bool cacheAtPositions = keysOut.rank() == 4 && k.rank() == 4 && keysOut.dim(2) != k.dim(2);
  if (cacheAtPositions && !options.positions)
    throw InvalidArgument("keysOut", "has " + std::to_string(keysOut.dim(2)) + " rows for " + std::to_string(k.dim(2)) +
                                         " keys: caches longer than the step take the rows' positions in "
                                         "options.positions");
  if (cacheAtPositions && keysOut.dim(2) < k.dim(2))
    throw InvalidArgument("keysOut", "has fewer rows than the step's " + std::to_string(k.dim(2)) + " keys");
  if (cacheAtPositions && (valuesOut.rank() != 4 || valuesOut.dim(2) != keysOut.dim(2)))
    throw InvalidArgument("valuesOut", "shape " + toString(valuesOut.shape) + " must have keysOut's rows");
  // The caches' first k.dim(2) rows, for the checks and strides the rows share.
  const auto stepRows = [&](const TensorView& cache) {
    return cacheAtPositions ? cache.sliced(2, 0, k.dim(2)) : cache;
  };
  const RopePlan qPlan = planRope(ctx, q, q, options, "q", "q");
  const RopePlan kPlan = planRope(ctx, k, stepRows(keysOut), options, "k", "keysOut");
  const RopePlan vPlan = planRope(ctx, v, stepRows(valuesOut), options, "v", "valuesOut");
  if (cacheAtPositions) {
    requireFitsDevice(ctx, "keysOut", keysOut);
    requireFitsDevice(ctx, "valuesOut", valuesOut);
  }
  if (k.shape != v.shape)
    throw InvalidArgument("v", "shape " + toString(v.shape) + " differs from k's " + toString(k.shape));
  if (q.dim(0) != k.dim(0) || q.dim(2) != k.dim(2) || q.dim(3) != k.dim(3))
    throw InvalidArgument(
        "k", "shape " + toString(k.shape) + " must match q's " + toString(q.shape) + " in batch, seq and head dim");
  if (k.dtype != q.dtype || v.dtype != q.dtype)
    throw InvalidArgument(k.dtype != q.dtype ? "k" : "v", "dtype differs from q's");
  if (k.buffer != q.buffer || v.buffer != q.buffer)
    throw InvalidArgument(k.buffer != q.buffer ? "k" : "v", "must lie in q's buffer (the stacked projection's rows)");
  if (keysOut.buffer == q.buffer) throw InvalidArgument("keysOut", "must lie in another buffer than q, k and v");
  if (valuesOut.buffer == q.buffer) throw InvalidArgument("valuesOut", "must lie in another buffer than q, k and v");
  const uint32_t loopLimit = ctx.info().loopIterationLimit;
  if (loopLimit && uint64_t{qPlan.params.heads} + kPlan.params.heads >= loopLimit)
    throw Unsupported("argument 'q': " + std::to_string(qPlan.params.heads + kPlan.params.heads) +
                      " heads exceed what " + ctx.info().name + " can loop over in one invocation");
  if (headNorms) {
    requireNormParameter(ctx, "headNorms.q", headNorms->q, q.dim(3), "q", q);
    requireNormParameter(ctx, "headNorms.k", headNorms->k, q.dim(3), "q", q);
    requireNormEps("headNorms.eps", headNorms->eps);
  }
  pc::RopeAppendParams p{};
  p.batch = qPlan.params.batch;
  p.qHeads = qPlan.params.heads;
  p.kvHeads = kPlan.params.heads;
  p.seq = qPlan.params.seq;
  p.headDim = qPlan.params.headDim;
  p.rotaryDim = qPlan.params.rotaryDim;
  p.qOffset = qPlan.params.xOffset, p.qStrideB = qPlan.params.strideB, p.qStrideH = qPlan.params.strideH;
  p.qStrideL = qPlan.params.strideL;
  p.kOffset = kPlan.params.xOffset, p.kStrideB = kPlan.params.strideB, p.kStrideH = kPlan.params.strideH;
  p.kStrideL = kPlan.params.strideL;
  p.vOffset = vPlan.params.xOffset, p.vStrideB = vPlan.params.strideB, p.vStrideH = vPlan.params.strideH;
  p.vStrideL = vPlan.params.strideL;
  p.keysOffset = kPlan.params.outOffset, p.keysStrideB = kPlan.params.outStrideB;
  p.keysStrideH = kPlan.params.outStrideH, p.keysStrideL = kPlan.params.outStrideL;
  p.valuesOffset = vPlan.params.outOffset, p.valuesStrideB = vPlan.params.outStrideB;
  p.valuesStrideH = vPlan.params.outStrideH, p.valuesStrideL = vPlan.params.outStrideL;
  p.positionOffset = qPlan.params.positionOffset;
  p.flags = (qPlan.params.interleaved ? ROPE_APPEND_INTERLEAVED : 0u) | (headNorms ? ROPE_APPEND_HEAD_NORMS : 0u) |
            (options.positions ? ROPE_APPEND_DEVICE_POSITIONS : 0u) |
            (cacheAtPositions ? ROPE_APPEND_CACHE_AT_POSITIONS : 0u);
  p.positionsStrideB = qPlan.params.positionMode == 2 ? p.seq : 0u;
  p.cacheRows = detail::checkedU32("keysOut", keysOut.dim(2));
  p.headNormEps = headNorms ? headNorms->eps : 0.0f;
  return p;
}

const Buffer& uploadRopeSteps(Context& ctx, const RopeOptions& options, uint32_t rotaryDim) {
  std::vector<uint32_t> steps = ropePhaseSteps(options.theta, rotaryDim, options.frequencyDivisors);
  return ctx.recorder().upload(steps.data(), steps.size() * sizeof(uint32_t), "RoPE's phase steps");
}

}  // namespace detail

void ropeAppend(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v, const TensorView& keysOut,
                const TensorView& valuesOut, const RopeOptions& options, const std::optional<HeadNorms>& headNorms) {
  pc::RopeAppendParams p = detail::planRopeAppend(ctx, q, k, v, keysOut, valuesOut, options, headNorms);
  // A workgroup per (b, l) whose invocation i owns pair i of every head.
  const uint32_t subgroup = std::max<uint32_t>(ctx.info().subgroupSize, 1);
  const uint64_t workgroup = std::max<uint64_t>((q.dim(3) / 2 + subgroup - 1) / subgroup * subgroup, subgroup);
  if (workgroup > ctx.info().maxWorkgroupInvocations)
    throw Unsupported("argument 'q': head dim " + std::to_string(q.dim(3)) + " needs workgroups of " +
                      std::to_string(workgroup) + " invocations; " + ctx.info().name + " allows " +
                      std::to_string(ctx.info().maxWorkgroupInvocations));
  Batch batch(ctx);
  const Buffer& steps = detail::uploadRopeSteps(ctx, options, p.rotaryDim);
  detail::recordOp(ctx,
                   {detail::shaders::rope_append.of(q.dtype), ROPE_APPEND_BINDING_COUNT,
                    SpecConstants().set(SPEC_WORKGROUP_SIZE, static_cast<uint32_t>(workgroup))},
                   {{ROPE_APPEND_BINDING_QKV, q.buffer},
                    {ROPE_APPEND_BINDING_KEYS, keysOut.buffer},
                    {ROPE_APPEND_BINDING_VALUES, valuesOut.buffer},
                    {ROPE_APPEND_BINDING_PHASE_STEP, &steps},
                    {ROPE_APPEND_BINDING_Q_NORM, headNorms ? headNorms->q.buffer : &steps},
                    {ROPE_APPEND_BINDING_K_NORM, headNorms ? headNorms->k.buffer : &steps},
                    {ROPE_APPEND_BINDING_POSITIONS, options.positions ? options.positions->buffer : &steps}},
                   p, groupsFor(ctx.device(), uint64_t{p.batch} * p.seq),
                   {"ropeAppend",
                    {"q", "k", "v", "headNorms", "positions"},
                    ROPE_APPEND_BINDING_STATUS,
                    {"", "", "", "", "holds a position outside the caches' rows"}});
  batch.submit();
}

namespace detail {

// rope and ropeAppend (the same rotation; the append's copies are exact).
VKATTN_OP_ROW(rope) {
  OpRow row{.name = "rope", .f32 = {2e-6, 0.0}, .f16 = {2e-3, 0.0}};
  for (DType dtype : {DType::F32, DType::F16}) {
    const std::string suffix = std::string(" ") + toString(dtype);
    row.catalog.push_back({"rope" + suffix, [dtype](Context& ctx) {
                             rope(ctx, ctx.tensor({1, 32, 1024, 128}, dtype), ctx.tensor({1, 32, 1024, 128}, dtype));
                           }});
    // A decoded token's queries and keys rotated, its keys and values appended to the cache
    // (32 query heads, 8 K/V heads of 128, after the stacked projection).
    row.catalog.push_back(
        {"rope append" + suffix, [dtype](Context& ctx) {
           Tensor rows = ctx.tensor({1, 1, 48 * 128}, dtype);
           Tensor keys = ctx.tensor({1, 8, 4096, 128}, dtype), values = ctx.tensor({1, 8, 4096, 128}, dtype);
           const auto heads = [&](int64_t first, int64_t count) {
             return rows.view().reshaped({1, 1, 48, 128}).sliced(2, first, count).permuted({0, 2, 1, 3});
           };
           ropeAppend(ctx, heads(0, 32), heads(32, 8), heads(40, 8), keys.view().sliced(2, 100, 1),
                      values.view().sliced(2, 100, 1), {.positionOffset = 100});
         }});
  }
  return row;
}

}  // namespace detail

}  // namespace vkattn
