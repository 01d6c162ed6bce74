// embedding(): checks, then one dispatch; ids out of range come back through the status slot.
#include "vkattn/ops/embedding.hpp"

#include <kernel_interface.h>
#include <push_constants.h>

#include <algorithm>
#include <cmath>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn {
namespace {

constexpr uint32_t kEmbeddingWorkgroup = 256;

Shape outputShape(const TensorView& table, const TensorView& ids) {
  Shape s = ids.shape;
  s.push_back(table.dim(-1));
  return s;
}

DType outputDtype(const TensorView& table) {
  return isWeightFormat(table.dtype) ? DType::F32 : table.dtype;
}

// An f16 table may also write f32 rows (a language model's first activations).
bool outputDtypeFits(const TensorView& table, DType out) {
  return out == outputDtype(table) || (table.dtype == DType::F16 && out == DType::F32);
}

detail::ShaderId tableModule(DType dtype, DType out) {
  if (dtype == DType::F16 && out == DType::F32) return detail::shaders::embedding_f16_to_f32;
  if (const auto* blocks = detail::shaders::embedding_by_format.find(dtype)) return *blocks;
  return detail::shaders::embedding.of(dtype);
}

void checkInputs(Context& ctx, const TensorView& table, const TensorView& ids) {
  using namespace detail;
  requireTensor("table", table);
  requireDtype("table", table,
               {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K});
  requireRank("table", table, 2, 2);
  requireContiguous("table", table);
  requireDtypeSupported(ctx, "table", table);
  requireFitsDevice(ctx, "table", table);
  requireTensor("ids", ids);
  requireDtype("ids", ids, {DType::I32});
  requireRank("ids", ids, 1, 7);
  requireContiguous("ids", ids);
  requireFitsDevice(ctx, "ids", ids);
}

}  // namespace

void embedding(Context& ctx, const TensorView& table, const TensorView& ids, const TensorView& out,
               const EmbeddingOptions& options) {
  using namespace detail;
  checkInputs(ctx, table, ids);
  requireTensor("out", out);
  requireContiguous("out", out);
  requireShape("out", out, outputShape(table, ids));
  if (!outputDtypeFits(table, out.dtype))
    throw InvalidArgument("out", std::string("dtype ") + toString(out.dtype) + ", expected " +
                                     toString(outputDtype(table)) +
                                     (isWeightFormat(table.dtype) ? " (a block-format table gives f32 rows)" : ""));
  if (!std::isfinite(options.scale)) throw InvalidArgument("scale", "must be finite");
  requireFitsDevice(ctx, "out", out);
  if (out.buffer == table.buffer || out.buffer == ids.buffer)
    throw InvalidArgument("out", "shares a buffer with an input; the output must be a separate tensor");

  pc::EmbeddingParams p{};
  p.tokens = static_cast<uint32_t>(ids.numel());
  p.dim = static_cast<uint32_t>(table.dim(1));
  p.vocab = static_cast<uint32_t>(table.dim(0));
  p.seq = static_cast<uint32_t>(ids.dim(-1));
  p.scale = options.scale;
  const Buffer* positions = table.buffer;
  if (options.positions && isWeightFormat(table.dtype))
    throw InvalidArgument("positions", std::string("are taken with an f32 or f16 table, not ") + toString(table.dtype));
  if (options.positions) {
    const TensorView& pos = *options.positions;
    requireTensor("positions", pos);
    requireRank("positions", pos, 2, 2);
    requireContiguous("positions", pos);
    requireSameDtype("positions", pos, "table", table);
    requireFitsDevice(ctx, "positions", pos);
    if (pos.dim(1) != table.dim(1))
      throw InvalidArgument("positions", "shape " + toString(pos.shape) + ", expected [P, " +
                                             std::to_string(table.dim(1)) + "] (table's feature dim)");
    if (options.positionOffset < 0) throw InvalidArgument("positionOffset", "must be >= 0");
    if (options.positionOffset + ids.dim(-1) > pos.dim(0))
      throw InvalidArgument("positions", std::to_string(pos.dim(0)) + " positions; positionOffset " +
                                             std::to_string(options.positionOffset) + " + " +
                                             std::to_string(ids.dim(-1)) + " tokens need more");
    if (out.buffer == pos.buffer) throw InvalidArgument("out", "shares a buffer with positions");
    p.positionOffset = static_cast<uint32_t>(options.positionOffset);
    p.hasPositions = 1;
    positions = pos.buffer;
  } else if (options.positionOffset != 0) {
    throw InvalidArgument("positionOffset", "given without positions");
  }

  SpecConstants constants;
  constants.set(SPEC_WORKGROUP_SIZE, kEmbeddingWorkgroup);
  if (!isWeightFormat(table.dtype)) constants.set(ELEMENTWISE_SPEC_VEC4, p.dim % 4 == 0);
  const std::string range = "an id is outside [0, " + std::to_string(p.vocab) + ") (the table's rows)";
  // A block-format table: one invocation per unit of a row (weight_formats.glsl's UNIT: a 32-weight
  // block, or a quarter of a 256-weight K-quant super-block), else per 4 features.
  const uint64_t perToken = isWeightFormat(table.dtype)
                                ? p.dim / std::min<uint32_t>(static_cast<uint32_t>(blockElements(table.dtype)), 64)
                                : (p.dim + 3) / 4;
  const uint64_t invocations = uint64_t{p.tokens} * perToken;
  recordOp(ctx, {tableModule(table.dtype, out.dtype), EMBEDDING_BINDING_COUNT, constants},
           {{EMBEDDING_BINDING_TABLE, table.buffer},
            {EMBEDDING_BINDING_IDS, ids.buffer},
            {EMBEDDING_BINDING_POSITIONS, positions},
            {EMBEDDING_BINDING_OUT, out.buffer}},
           p, groupsFor(ctx.device(), invocations, kEmbeddingWorkgroup),
           {"embedding", {"ids", "table", "positions"}, EMBEDDING_BINDING_STATUS, {range, "", ""}});
  ctx.flush();
}

Tensor embedding(Context& ctx, const TensorView& table, const TensorView& ids, const EmbeddingOptions& options) {
  checkInputs(ctx, table, ids);
  Tensor out = ctx.tensor(outputShape(table, ids), outputDtype(table));
  embedding(ctx, table, ids, out, options);
  return out;
}

}  // namespace vkattn
