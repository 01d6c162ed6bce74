// linear() and matmul(): argument checks and the mapping of views onto MatmulParams; the kernels
// are launched by matmul_kernel.cpp.
#include "vkattn/ops/linear.hpp"

#include <algorithm>
#include <cmath>

#include "checks.hpp"
#include "linear_tail.hpp"
#include "matmul_kernel.hpp"
#include "op_row_definition.hpp"
#include "row_kernel.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/elementwise.hpp"
#include "vkattn/ops/linear_steps.hpp"
#include "vkattn/ops/row_ops.hpp"
#include "weight_kernel.hpp"

namespace vkattn {
namespace {

using detail::checkedU32;

// A float operand of one dtype, on the device, whose last dim is contiguous.
void requireOperand(const Context& ctx, const std::string& name, const TensorView& v) {
  using namespace detail;
  requireTensor(name, v);
  requireDtype(name, v, {DType::F32, DType::F16});
  requireDtypeSupported(ctx, name, v);
  requireFitsDevice(ctx, name, v);
  if (v.rank() >= 1 && v.shape.back() > 1 && v.strides.back() != 1)
    throw InvalidArgument(name, "the last dim must be contiguous (stride 1)");
  checkedU32(name, v.offset);
}

// The stride between consecutive rows when the leading dims of v ([..., cols]) are flattened to
// rows; throws when they cannot be (e.g. a transposed view). Dims of size 1 have no stride.
uint32_t flatRowStride(const std::string& name, const TensorView& v) {
  int64_t stride = -1;  // of the innermost leading dim larger than 1
  int64_t span = 0;     // elements the rows inside it cover
  for (int64_t i = v.rank() - 2; i >= 0; --i) {
    const auto d = static_cast<std::size_t>(i);
    if (v.shape[d] == 1) continue;
    if (stride < 0) {
      stride = v.strides[d];
    } else if (v.strides[d] != span) {
      throw InvalidArgument(name, "leading dims of shape " + toString(v.shape) + " with strides " +
                                      toString(v.strides) + " do not flatten to rows of one stride");
    }
    span = v.strides[d] * v.shape[d];
  }
  if (stride < 0) return 0;  // a single row
  if (stride < v.shape.back())
    throw InvalidArgument(name, "rows overlap (row stride " + std::to_string(stride) + " < " +
                                    std::to_string(v.shape.back()) + " columns)");
  return checkedU32(name, stride);
}

// Byte range [first, last) of a view in its buffer.
std::pair<std::size_t, std::size_t> byteRange(const TensorView& v) {
  const std::size_t first = storageBytes(v.dtype, v.offset);
  return {first, first + v.spanBytes()};
}

bool overlaps(const TensorView& x, const TensorView& y) {
  if (x.buffer != y.buffer) return false;
  const auto [a0, a1] = byteRange(x);
  const auto [b0, b1] = byteRange(y);
  return a0 < b1 && b0 < a1;
}

void requireDisjoint(const std::string& outName, const TensorView& out, const std::string& inName,
                     const TensorView& in) {
  if (overlaps(out, in))
    throw InvalidArgument(outName, "overlaps " + inName + " in memory; the output must be a separate tensor");
}

// A weight [N, K] in a block format (or f16 under f32 x): its byte offset and row stride into p.
void requireWeightBlocks(const Context& ctx, const TensorView& w, int64_t k, pc::MatmulParams& p) {
  using namespace detail;
  const BlockRows rows = requireBlockRows(ctx, "weight", w);
  if (const int64_t unit = weightKernelUnit(w.dtype); k % unit != 0)  // f16 weights under f32 x
    throw InvalidArgument("weight", "K = " + std::to_string(k) + " is not a multiple of " + std::to_string(unit) +
                                        ", which " + toString(w.dtype) + " weights under f32 x need (give x in " +
                                        toString(w.dtype) + " to use the float kernels)");
  p.bOffset = rows.firstByte;
  p.bStrideRow = rows.rowBytes;
}

Shape linearOutputShape(const TensorView& x, int64_t n) {
  Shape s = x.shape;
  s.back() = n;
  return s;
}

// Checks x, weight and y and maps them onto a MatmulCall (no bias, residual or activation yet):
// y[..., N] = x W^T with N = W's rows, or gated (gatedLinear) N = half of them.
detail::MatmulCall linearCall(Context& ctx, const TensorView& x, const TensorView& weight, const TensorView& y,
                              bool gated) {
  using namespace detail;
  requireOperand(ctx, "x", x);
  requireTensor("weight", weight);
  const bool blocks = isWeightKernelPair(weight.dtype, x.dtype);
  requireDtype("weight", weight,
               {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K});
  if (!blocks) requireOperand(ctx, "weight", weight);
  requireOperand(ctx, "y", y);
  requireRank("x", x, 1, 8);
  requireRank("weight", weight, 2, 2);
  if (!blocks) requireSameDtype("weight", weight, "x", x);
  requireSameDtype("y", y, "x", x);
  const int64_t k = x.dim(-1);
  if (gated && weight.dim(0) % 2 != 0)
    throw InvalidArgument("weight", "has " + std::to_string(weight.dim(0)) +
                                        " rows; a gate projection stacked on an up projection has an even number");
  const int64_t n = weight.dim(0) / (gated ? 2 : 1);
  if (weight.dim(1) != k)
    throw InvalidArgument("weight", "shape " + toString(weight.shape) + " is not [N, " + std::to_string(k) +
                                        "]: its K differs from x's last dim " + std::to_string(k));
  requireShape("y", y, linearOutputShape(x, n));
  requireDisjoint("y", y, "x", x);
  requireDisjoint("y", y, "weight", weight);

  MatmulCall call;
  pc::MatmulParams& p = call.params;
  p.batch = 1;
  p.m = checkedU32("x", x.numel() / k);
  p.n = checkedU32("weight", n);
  p.k = checkedU32("x", k);
  p.aOffset = checkedU32("x", x.offset);
  p.aStrideM = flatRowStride("x", x);
  if (blocks) {
    requireWeightBlocks(ctx, weight, k, p);
  } else {
    p.bOffset = checkedU32("weight", weight.offset);
    p.bStrideRow = weight.shape[0] > 1 ? checkedU32("weight", weight.strides[0]) : 0;
  }
  p.cOffset = checkedU32("y", y.offset);
  p.cStrideM = flatRowStride("y", y);
  p.alpha = 1.0f;
  call.dtype = x.dtype;
  call.a = x.buffer;
  call.b = weight.buffer;
  call.c = y.buffer;
  return call;
}

// Checks an input norm against x: its weight [K] of x's dtype, a finite eps >= 0.
void requireInputNorm(const Context& ctx, const InputRmsNorm& norm, const TensorView& x) {
  detail::requireNormParameter(ctx, "inputNorm.weight", norm.weight, x.dim(-1), "x", x);
  detail::requireNormEps("inputNorm.eps", norm.eps);
}

// x normalized by rmsNorm() into scratch (for the kernels that do not normalize as they load).
TensorView normalizedCopy(Context& ctx, const TensorView& x, const InputRmsNorm& norm) {
  if (!x.contiguous() || x.offset != 0)
    throw InvalidArgument("x",
                          "must be contiguous from its buffer's start where inputNorm is not folded into the "
                          "product (normalizesInProduct() is false here: rmsNorm() makes a normalized copy)");
  const TensorView out = ctx.scratch(x.shape, x.dtype);
  detail::rmsNormNaming(ctx, x, out, {.weight = norm.weight, .eps = norm.eps}, {"x", "inputNorm.weight", "residual"});
  return out;
}

// Puts a checked input norm into the call for the matrix-vector kernel to apply.
void foldInputNorm(const InputRmsNorm& norm, detail::MatmulCall& call) {
  call.params.inputNormOffset = detail::checkedU32("inputNorm.weight", norm.weight.offset);
  call.params.inputNormEps = norm.eps;
  call.inputNorm = norm.weight.buffer;
}

}  // namespace

bool normalizesInProduct(const Context& ctx, const TensorView& x, const TensorView& weight, WeightKernel requested) {
  using namespace detail;
  if (!x.buffer || !weight.buffer || x.rank() < 1 || !isWeightKernelPair(weight.dtype, x.dtype)) return false;
  const int64_t rows = x.numel() / std::max<int64_t>(x.dim(-1), 1);
  return weightKernelFor(ctx, rows, weight.dtype, requested) == WeightKernel::Matvec;
}

bool finishesRowsInProduct(const Context& ctx, const TensorView& x, const TensorView& weight, WeightKernel requested) {
  const int64_t rows = x.buffer && x.rank() >= 1 ? x.numel() / std::max<int64_t>(x.dim(-1), 1) : 0;
  return rows <= kWeightMatvecMaxRows && normalizesInProduct(ctx, x, weight, requested);
}

void linear(Context& ctx, const TensorView& x, const TensorView& weight, const TensorView& y,
            const LinearOptions& options) {
  using namespace detail;
  MatmulCall call = linearCall(ctx, x, weight, y, false);
  if (options.inputNorm) {
    requireInputNorm(ctx, *options.inputNorm, x);
    if (normalizesInProduct(ctx, x, weight, options.weightKernel)) {
      foldInputNorm(*options.inputNorm, call);
    } else {
      Batch batch(ctx);
      LinearOptions rest = options;
      rest.inputNorm.reset();
      linear(ctx, normalizedCopy(ctx, x, *options.inputNorm), weight, y, rest);
      batch.submit();
      return;
    }
  }
  pc::MatmulParams& p = call.params;
  const int64_t n = weight.dim(0);
  const bool blocks = isWeightKernelPair(weight.dtype, x.dtype);
  call.activation = options.activation;
  if (options.bias) {
    const TensorView& b = *options.bias;
    requireOperand(ctx, "bias", b);
    requireShape("bias", b, {n});
    requireSameDtype("bias", b, "x", x);
    requireDisjoint("y", y, "bias", b);
    p.biasOffset = checkedU32("bias", b.offset);
    call.bias = b.buffer;
  }
  if (options.residual) {
    const TensorView& r = *options.residual;
    requireOperand(ctx, "residual", r);
    requireShape("residual", r, y.shape);
    requireSameDtype("residual", r, "x", x);
    p.resOffset = checkedU32("residual", r.offset);
    p.resStrideM = flatRowStride("residual", r);
    // Each output reads its own residual element before writing it, so y itself works; any
    // other overlap would let one invocation overwrite another's residual.
    const bool same = r.buffer == y.buffer && r.offset == y.offset && p.resStrideM == p.cStrideM;
    if (!same && overlaps(y, r))
      throw InvalidArgument("residual", "partly overlaps y; pass y itself or a separate tensor");
    call.residual = r.buffer;
  }
  if (options.ropeAppend || options.postNorm) {
    const LinearSteps steps{options.ropeAppend, options.postNorm};
    const pc::LinearTailParams params = checkStep(ctx, steps, options.residual.has_value(), y);
    if (!finishesRowsInProduct(ctx, x, weight, options.weightKernel) || !fitsOneWorkgroup(steps, params)) {
      Batch batch(ctx);
      LinearOptions product = options;
      product.ropeAppend.reset();
      product.postNorm.reset();
      linear(ctx, x, weight, y, product);
      runStepAfter(ctx, steps, y);
      batch.submit();
      return;
    }
    const LinearTail tail = linearTail(ctx, steps, params);
    call.tail = &tail;
    runWeightLinear(ctx, call, weight.dtype, options.weightKernel);
    return;
  }
  if (blocks && weightKernelFor(ctx, p.m, weight.dtype, options.weightKernel) == WeightKernel::Dequantized) {
    // The weights decoded to x's dtype in scratch, then the float product on them.
    Batch batch(ctx);
    const TensorView decoded = ctx.scratch(weight.shape, x.dtype);
    dequantize(ctx, weight, decoded);
    p.bOffset = checkedU32("weight", decoded.offset);
    p.bStrideRow = checkedU32("weight", weight.dim(1));
    call.b = decoded.buffer;
    runMatmul(ctx, call, options.variant, "linear", {"x", "weight", "bias", "residual"});
    batch.submit();
  } else if (blocks) {
    runWeightLinear(ctx, call, weight.dtype, options.weightKernel);
  } else {
    runMatmul(ctx, call, options.variant, "linear", {"x", "weight", "bias", "residual"});
  }
}

void gatedLinear(Context& ctx, const TensorView& x, const TensorView& weight, const TensorView& y,
                 const GatedLinearOptions& options) {
  using namespace detail;
  MatmulCall call = linearCall(ctx, x, weight, y, true);
  requireContiguous("y", y);
  const int64_t f = weight.dim(0) / 2;
  call.activation = options.activation;
  const bool blocks = isWeightKernelPair(weight.dtype, x.dtype);
  const WeightKernel kernel =
      blocks ? weightKernelFor(ctx, call.params.m, weight.dtype, options.weightKernel) : WeightKernel::Tiled;
  if (options.inputNorm) requireInputNorm(ctx, *options.inputNorm, x);
  const bool fold = options.inputNorm && kernel == WeightKernel::Matvec;
  if (kernel == WeightKernel::Matvec || (kernel == WeightKernel::MatvecInt8 && !options.inputNorm)) {
    if (fold) foldInputNorm(*options.inputNorm, call);
    runWeightLinear(ctx, call, weight.dtype, kernel, true);  // both products and the gate in one dispatch
    return;
  }
  Batch batch(ctx);
  // The integer-dot kernel under a norm: the normalized copy first, then that kernel.
  const TensorView in = options.inputNorm ? normalizedCopy(ctx, x, *options.inputNorm) : x;
  if (kernel == WeightKernel::MatvecInt8) {
    MatmulCall normalized = linearCall(ctx, in, weight, y, true);
    normalized.activation = options.activation;
    runWeightLinear(ctx, normalized, weight.dtype, kernel, true);
    batch.submit();
    return;
  }
  // Any other kernel: the two products, then the gated activation.
  const Shape half = linearOutputShape(x, f);
  const TensorView gate = ctx.scratch(half, x.dtype), up = ctx.scratch(half, x.dtype);
  const LinearOptions products{.variant = options.variant, .weightKernel = options.weightKernel};
  linear(ctx, in, weight.sliced(0, 0, f), gate, products);
  linear(ctx, in, weight.sliced(0, f, f), up, products);
  gatedActivation(ctx, options.activation, gate, up, y);
  batch.submit();
}

Tensor linear(Context& ctx, const TensorView& x, const TensorView& weight, const LinearOptions& options) {
  detail::requireTensor("x", x);
  detail::requireDtype("x", x, {DType::F32, DType::F16});  // y takes x's dtype
  detail::requireTensor("weight", weight);
  detail::requireRank("x", x, 1, 8);
  detail::requireRank("weight", weight, 2, 2);
  Tensor y = ctx.tensor(linearOutputShape(x, weight.dim(0)), x.dtype);
  linear(ctx, x, weight, y, options);
  return y;
}

void matmul(Context& ctx, const TensorView& a, const TensorView& b, const TensorView& c, const MatmulOptions& options) {
  using namespace detail;
  requireOperand(ctx, "a", a);
  requireOperand(ctx, "b", b);
  requireOperand(ctx, "c", c);
  requireRank("a", a, 2, 3);
  requireRank("b", b, a.rank(), a.rank());
  requireRank("c", c, a.rank(), a.rank());
  requireSameDtype("b", b, "a", a);
  requireSameDtype("c", c, "a", a);
  if (!std::isfinite(options.alpha)) throw InvalidArgument("alpha", "must be finite");
  const bool batched = a.rank() == 3;
  const int64_t batch = batched ? a.dim(0) : 1;
  const int64_t m = a.dim(-2), k = a.dim(-1);
  const int64_t bk = options.transposeB ? b.dim(-1) : b.dim(-2);
  const int64_t n = options.transposeB ? b.dim(-2) : b.dim(-1);
  if (bk != k)
    throw InvalidArgument("b", "shape " + toString(b.shape) + " has K = " + std::to_string(bk) + " (" +
                                   (options.transposeB ? "last" : "second to last") + " dim), a's K is " +
                                   std::to_string(k));
  if (batched && b.dim(0) != batch && b.dim(0) != 1)
    throw InvalidArgument("b", "batch " + std::to_string(b.dim(0)) + " differs from a's " + std::to_string(batch));
  Shape cShape = batched ? Shape{batch, m, n} : Shape{m, n};
  requireShape("c", c, cShape);
  requireDisjoint("c", c, "a", a);
  requireDisjoint("c", c, "b", b);

  MatmulCall call;
  pc::MatmulParams& p = call.params;
  const int r = batched ? 1 : 0;  // index of the row dim
  p.batch = checkedU32("a", batch);
  p.m = checkedU32("a", m);
  p.n = checkedU32("b", n);
  p.k = checkedU32("a", k);
  p.aOffset = checkedU32("a", a.offset);
  p.aStrideB = batched && batch > 1 ? checkedU32("a", a.strides[0]) : 0;
  p.aStrideM = checkedU32("a", a.strides[static_cast<std::size_t>(r)]);
  p.bOffset = checkedU32("b", b.offset);
  p.bStrideB = batched && b.dim(0) > 1 ? checkedU32("b", b.strides[0]) : 0;
  p.bStrideRow = checkedU32("b", b.strides[static_cast<std::size_t>(r)]);
  p.cOffset = checkedU32("c", c.offset);
  p.cStrideB = batched ? checkedU32("c", c.strides[0]) : 0;
  p.cStrideM = checkedU32("c", c.strides[static_cast<std::size_t>(r)]);
  if (batched && batch > 1 && p.cStrideB == 0) throw InvalidArgument("c", "broadcast (zero) batch stride");
  if (m > 1 && p.cStrideM < n) throw InvalidArgument("c", "rows overlap (row stride < N)");
  p.alpha = options.alpha;
  call.dtype = a.dtype;
  call.bKN = !options.transposeB;
  call.a = a.buffer;
  call.b = b.buffer;
  call.c = c.buffer;
  runMatmul(ctx, call, options.variant, "matmul", {"a", "b"});
}

Tensor matmul(Context& ctx, const TensorView& a, const TensorView& b, const MatmulOptions& options) {
  detail::requireTensor("a", a);
  detail::requireTensor("b", b);
  detail::requireRank("a", a, 2, 3);
  detail::requireRank("b", b, a.rank(), a.rank());
  const int64_t n = options.transposeB ? b.dim(-2) : b.dim(-1);
  Shape shape = a.rank() == 3 ? Shape{a.dim(0), a.dim(1), n} : Shape{a.dim(0), n};
  Tensor c = ctx.tensor(shape, a.dtype);
  matmul(ctx, a, b, c, options);
  return c;
}

namespace detail {
namespace {

// With inputNorm, x's RMSNorm folded into the product (a decoder's pre-norm).
CatalogShape linearShape(std::string label, DType activations, DType weights, int64_t m, int64_t n, int64_t k,
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
CatalogShape gatedShape(std::string label, DType weights, int64_t f, int64_t k, bool inputNorm = false) {
  return {std::move(label), [=](Context& ctx) {
            Tensor x = ctx.tensor({1, k}, DType::F32), w = ctx.tensor({2 * f, k}, weights),
                   y = ctx.tensor({1, f}, DType::F32), g = ctx.tensor({k}, DType::F32);
            GatedLinearOptions options;
            if (inputNorm) options.inputNorm = InputRmsNorm{.weight = g.view()};
            gatedLinear(ctx, x, w, y, options);
          }};
}

}  // namespace

// linear, matmul and gatedLinear, with their epilogues and the steps after them. The bound grows
// with each output's sum of |products|: the accumulation order differs from the reference's.
VKATTN_OP_ROW(linear) {
  OpRow row{.name = "linear", .f32 = {1e-5, 1e-5, 2e-7}, .f16 = {1e-3, 1e-3, 2e-7}};
  std::vector<CatalogShape>& shapes = row.catalog;
  // Dense layers: prompts (tiles; cooperative matrices for f16) and decode (one row).
  for (DType dtype : {DType::F16, DType::F32}) {
    shapes.push_back(
        linearShape(std::string("linear ") + toString(dtype) + " 512x4096x4096", dtype, dtype, 512, 4096, 4096));
    shapes.push_back(
        linearShape(std::string("linear ") + toString(dtype) + " 1x4096x4096", dtype, dtype, 1, 4096, 4096));
  }
  // The workgroup-scope cooperative-matrix-2 kernel, on request (written, not yet executed).
  shapes.push_back({"linear f16 512x4096x4096 coopmat2-wg", [](Context& ctx) {
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
      shapes.push_back(linearShape(name + std::to_string(rows) + "x4096x4096", DType::F32, format, rows, 4096, 4096));
    if (format != DType::F16)
      shapes.push_back(
          linearShape(name + "1x4096x4096 integer-dot", DType::F32, format, 1, 4096, 4096, WeightKernel::MatvecInt8));
  }
  // Prompts on decoded weights (Dequantized: dequantize(), then the float product) and on the
  // workgroup-scope cooperative-matrix-2 weight kernel (written, not yet executed), on request.
  shapes.push_back(linearShape("linear Q4_K weights 512x4096x4096 dequantized", DType::F16, DType::Q4_K, 512, 4096,
                               4096, WeightKernel::Dequantized));
  for (DType x : {DType::F32, DType::F16})
    shapes.push_back(linearShape(std::string("linear Q4_K weights 512x4096x4096 coopmat2-wg ") + toString(x) + " x", x,
                                 DType::Q4_K, 512, 4096, 4096, WeightKernel::Coopmat2Workgroup));
  // The gate and up projections of a feed-forward layer read in one dispatch when decoding.
  for (DType format : {DType::Q4_K, DType::F16})
    shapes.push_back(
        gatedShape(std::string("gated linear ") + toString(format) + " weights 1x4096x4096", format, 4096, 4096));
  // A decoder's pre-norm folded into the products that read it (LinearOptions::inputNorm).
  for (DType format : {DType::Q4_K, DType::F16}) {
    const std::string weights = std::string(toString(format)) + " weights 1x4096x4096 input norm";
    shapes.push_back(linearShape("linear " + weights, DType::F32, format, 1, 4096, 4096, WeightKernel::Auto, true));
    shapes.push_back(gatedShape("gated linear " + weights, format, 4096, 4096, true));
  }
  // A decoded token's step after its product, run by the product's last workgroup
  // (LinearOptions::ropeAppend, postNorm): 32 query and 8 K/V heads of 128 with head norms from a
  // stacked q/k/v product, and a post-norm after a 4096-wide product.
  shapes.push_back({"linear Q4_K weights 1x4096x6144 then RoPE and cache append", [](Context& ctx) {
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
  shapes.push_back({"linear Q4_K weights 1x4096x4096 then post-norm", [](Context& ctx) {
                      Tensor x = ctx.tensor({1, 4096}), w = ctx.tensor({4096, 4096}, DType::Q4_K),
                             y = ctx.tensor({1, 4096}), norm = ctx.tensor({4096}), residual = ctx.tensor({1, 4096});
                      linear(ctx, x, w, y, {.postNorm = PostNormStep{norm.view(), 1e-6f, residual.view()}});
                    }});
  return row;
}

}  // namespace detail

}  // namespace vkattn
