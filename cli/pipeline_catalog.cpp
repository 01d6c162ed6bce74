#include "pipeline_catalog.hpp"

#include "vkattn/vkattn.hpp"

namespace vkattn::cli {
namespace {

// Self-attention of `heads` query heads over kvHeads K/V heads, lq query rows against lk keys.
CatalogEntry attentionEntry(std::string label, DType dtype, int64_t dim, bool causal, int64_t heads, int64_t kvHeads,
                            int64_t lq, int64_t lk, AttentionVariant variant = AttentionVariant::Auto) {
  return {std::move(label), [=](Context& ctx) {
            Tensor q = ctx.tensor({1, heads, lq, dim}, dtype), k = ctx.tensor({1, kvHeads, lk, dim}, dtype),
                   v = ctx.tensor({1, kvHeads, lk, dim}, dtype), out = ctx.tensor({1, heads, lq, dim}, dtype);
            attention(ctx, q, k, v, out,
                      {.causal = causal, .alignment = MaskAlignment::BottomRight, .variant = variant});
          }};
}

// With inputNorm, x's RMSNorm folded into the product (a decoder's pre-norm).
CatalogEntry linearEntry(std::string label, DType activations, DType weights, int64_t m, int64_t n, int64_t k,
                         WeightKernel kernel = WeightKernel::Auto, bool inputNorm = false) {
  return {std::move(label), [=](Context& ctx) {
            Tensor x = ctx.tensor({m, k}, activations), w = ctx.tensor({n, k}, weights),
                   y = ctx.tensor({m, n}, activations), g = ctx.tensor({k}, activations);
            LinearOptions options{.weightKernel = kernel};
            if (inputNorm) options.inputNorm = InputRmsNorm{.weight = g.view()};
            linear(ctx, x, w, y, options);
          }};
}

// A feed-forward layer's gate and up projections in one dispatch (decode), F outputs from 2F rows.
CatalogEntry gatedEntry(std::string label, DType weights, int64_t f, int64_t k, bool inputNorm = false) {
  return {std::move(label), [=](Context& ctx) {
            Tensor x = ctx.tensor({1, k}, DType::F32), w = ctx.tensor({2 * f, k}, weights),
                   y = ctx.tensor({1, f}, DType::F32), g = ctx.tensor({k}, DType::F32);
            GatedLinearOptions options;
            if (inputNorm) options.inputNorm = InputRmsNorm{.weight = g.view()};
            gatedLinear(ctx, x, w, y, options);
          }};
}

}  // namespace

std::vector<CatalogEntry> pipelineCatalog() {
  std::vector<CatalogEntry> entries;
  // Prefill attention as Auto runs it: the cooperative-matrix kernel for f16 where there are
  // matrix units, the tiled kernel otherwise.
  for (int64_t dim : {64, 80, 96, 128, 160, 192, 256})
    for (bool causal : {false, true})
      entries.push_back(attentionEntry("attention f16 D" + std::to_string(dim) + (causal ? " causal" : ""), DType::F16,
                                       dim, causal, 8, 8, 1024, 1024));
  for (DType dtype : {DType::F32, DType::F16})
    entries.push_back(attentionEntry(std::string("attention tiled ") + toString(dtype) + " D128", dtype, 128, false, 8,
                                     8, 1024, 1024, AttentionVariant::Tiled));
  entries.push_back(attentionEntry("attention coopmat2 f16 D128", DType::F16, 128, false, 8, 8, 1024, 1024,
                                   AttentionVariant::Coopmat2));
  entries.push_back(attentionEntry("attention coopmat2-wg f16 D128", DType::F16, 128, false, 8, 8, 1024, 1024,
                                   AttentionVariant::Coopmat2Workgroup));
  // Decode: one query row of 32 heads against 8 K/V heads (GQA 4:1), split over the keys and
  // combined.
  entries.push_back(attentionEntry("attention decode f16 D128 GQA 4:1", DType::F16, 128, true, 32, 8, 1, 4096));
  // Dense layers: prompts (tiles; cooperative matrices for f16) and decode (one row).
  for (DType dtype : {DType::F16, DType::F32}) {
    entries.push_back(
        linearEntry(std::string("linear ") + toString(dtype) + " 512x4096x4096", dtype, dtype, 512, 4096, 4096));
    entries.push_back(
        linearEntry(std::string("linear ") + toString(dtype) + " 1x4096x4096", dtype, dtype, 1, 4096, 4096));
  }
  // The workgroup-scope cooperative-matrix-2 kernel, on request (written, not yet executed).
  entries.push_back({"linear f16 512x4096x4096 coopmat2-wg", [](Context& ctx) {
                       Tensor x = ctx.tensor({512, 4096}, DType::F16), w = ctx.tensor({4096, 4096}, DType::F16),
                              y = ctx.tensor({512, 4096}, DType::F16);
                       linear(ctx, x, w, y, {.variant = MatmulVariant::Coopmat2Workgroup});
                     }});
  // Weights in block formats (and f16 under f32 x), decoded as they load: matrix-vector (decode)
  // and tiled (prompts); and the integer-dot matrix-vector kernel (not Auto's choice until a GPU
  // has measured it) where the device has 8-bit dot products.
  for (DType format : {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::F16}) {
    const std::string name = std::string("linear ") + toString(format) + " weights ";
    for (int64_t rows : {1, 64})
      entries.push_back(linearEntry(name + std::to_string(rows) + "x4096x4096", DType::F32, format, rows, 4096, 4096));
    if (format != DType::F16)
      entries.push_back(
          linearEntry(name + "1x4096x4096 integer-dot", DType::F32, format, 1, 4096, 4096, WeightKernel::MatvecInt8));
  }
  // The gate and up projections of a feed-forward layer read in one dispatch when decoding.
  for (DType format : {DType::Q4_K, DType::F16})
    entries.push_back(
        gatedEntry(std::string("gated linear ") + toString(format) + " weights 1x4096x4096", format, 4096, 4096));
  // A decoder's pre-norm folded into the products that read it (LinearOptions::inputNorm).
  for (DType format : {DType::Q4_K, DType::F16}) {
    const std::string weights = std::string(toString(format)) + " weights 1x4096x4096 input norm";
    entries.push_back(linearEntry("linear " + weights, DType::F32, format, 1, 4096, 4096, WeightKernel::Auto, true));
    entries.push_back(gatedEntry("gated linear " + weights, format, 4096, 4096, true));
  }
  // A decoded token's step after its product, run by the product's last workgroup
  // (LinearOptions::ropeAppend, postNorm): 32 query and 8 K/V heads of 128 with head norms from a
  // stacked q/k/v product, and a post-norm after a 4096-wide product.
  entries.push_back({"linear Q4_K weights 1x4096x6144 then RoPE and cache append", [](Context& ctx) {
                       Tensor x = ctx.tensor({1, 1, 4096}), w = ctx.tensor({6144, 4096}, DType::Q4_K),
                              rows = ctx.tensor({1, 1, 6144}), norm = ctx.tensor({128});
                       Tensor keys = ctx.tensor({1, 8, 4096, 128}), values = ctx.tensor({1, 8, 4096, 128});
                       const auto heads = [&](int64_t first, int64_t count) {
                         return rows.view().reshaped({1, 1, 48, 128}).sliced(2, first, count).permuted({0, 2, 1, 3});
                       };
                       linear(ctx, x, w, rows,
                              {.ropeAppend = RopeAppendStep{heads(0, 32),
                                                            heads(32, 8),
                                                            heads(40, 8),
                                                            keys.view().sliced(2, 100, 1),
                                                            values.view().sliced(2, 100, 1),
                                                            {.positionOffset = 100},
                                                            HeadNorms{norm.view(), norm.view()}}});
                     }});
  entries.push_back({"linear Q4_K weights 1x4096x4096 then post-norm", [](Context& ctx) {
                       Tensor x = ctx.tensor({1, 4096}), w = ctx.tensor({4096, 4096}, DType::Q4_K),
                              y = ctx.tensor({1, 4096}), norm = ctx.tensor({4096}), residual = ctx.tensor({1, 4096});
                       linear(ctx, x, w, y, {.postNorm = PostNormStep{norm.view(), 1e-6f, residual.view()}});
                     }});
  // A 1B-class model's sampled token: top k 40 and top p 0.95 over one row of 32000 logits.
  // A decoded token's row of a 1B-class model's table, decoded from the file's format as it is gathered.
  for (DType format : {DType::F16, DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K})
    entries.push_back(
        {std::string("embedding ") + toString(format) + " table 32000x2048", [format](Context& ctx) {
           embedding(ctx, ctx.tensor({32000, 2048}, format), ctx.tensor({1, 1}, DType::I32), ctx.tensor({1, 1, 2048}));
         }});
  entries.push_back({"sample_tokens", [](Context& ctx) {
                       sampleTokens(ctx, ctx.tensor({1, 32000}), ctx.tensor({1}), ctx.tensor({1}, DType::I32),
                                    {.temperature = 0.8f, .topK = 40, .topP = 0.95f});
                     }});
  // The ops whose rows name their catalog shapes (vkattn/ops/op_row.hpp): the row kernels.
  for (const OpRow& row : opRows()) entries.insert(entries.end(), row.catalog.begin(), row.catalog.end());
  return entries;
}

}  // namespace vkattn::cli
