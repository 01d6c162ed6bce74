// activation(), gatedActivation() (swiglu()), add(): checks and one dispatch each over contiguous tensors.
#include "vkattn/ops/elementwise.hpp"

#include <kernel_interface.h>
#include <push_constants.h>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "op_row_definition.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/embedding.hpp"

namespace vkattn {
namespace {

constexpr uint32_t kElementwiseWorkgroup = 256;

void requireElementwise(Context& ctx, const std::string& name, const TensorView& v) {
  using namespace detail;
  requireTensor(name, v);
  requireDtype(name, v, {DType::F32, DType::F16});
  requireContiguous(name, v);
  requireDtypeSupported(ctx, name, v);
  requireFitsDevice(ctx, name, v);
}

// The output: x's shape and dtype; a separate tensor or x's own buffer (in place).
void requireOutput(Context& ctx, const TensorView& y, const TensorView& like, const std::string& likeName) {
  requireElementwise(ctx, "y", y);
  detail::requireShape("y", y, like.shape);
  detail::requireSameDtype("y", y, likeName, like);
}

// Records one elementwise kernel whose buffers are `a`, `b` (absent for activation) and `y`
// under the kernel's binding names, with the NaN status at `statusBinding`.
struct ElementwiseKernel {
  const char* op;
  detail::StorageVariants modules;
  uint32_t bindingCount, a, b, y, status;
};
constexpr ElementwiseKernel kActivation{
    "activation",         detail::shaders::activation, ACTIVATION_BINDING_COUNT, ACTIVATION_BINDING_X, 0,
    ACTIVATION_BINDING_Y, ACTIVATION_BINDING_STATUS};
constexpr ElementwiseKernel kSwiglu{
    "swiglu",          detail::shaders::swiglu, SWIGLU_BINDING_COUNT, SWIGLU_BINDING_GATE,
    SWIGLU_BINDING_UP, SWIGLU_BINDING_Y,        SWIGLU_BINDING_STATUS};
constexpr ElementwiseKernel kAdd{"add",         detail::shaders::add, ADD_BINDING_COUNT, ADD_BINDING_A,
                                 ADD_BINDING_B, ADD_BINDING_Y,        ADD_BINDING_STATUS};

void dispatchElementwise(Context& ctx, const ElementwiseKernel& kernel, DType dtype, pc::ElementwiseParams& p,
                         bool vec4, uint32_t activation, const Buffer* a, const Buffer* b, const Buffer* y,
                         std::vector<std::string> inputs) {
  SpecConstants constants;
  constants.set(SPEC_WORKGROUP_SIZE, kElementwiseWorkgroup).set(ELEMENTWISE_SPEC_VEC4, vec4);
  if (kernel.op != kAdd.op) constants.set(ELEMENTWISE_SPEC_ACTIVATION, activation);
  const detail::OpKernel op{kernel.modules.of(dtype), kernel.bindingCount, constants};
  const detail::StatusReport report{kernel.op, std::move(inputs), kernel.status};
  const GroupCount groups = groupsFor(ctx.device(), (uint64_t{p.count} + 3) / 4, kElementwiseWorkgroup);
  if (b)
    detail::recordOp(ctx, op, {{kernel.a, a}, {kernel.b, b}, {kernel.y, y}}, p, groups, report);
  else
    detail::recordOp(ctx, op, {{kernel.a, a}, {kernel.y, y}}, p, groups, report);
  ctx.flush();
}

}  // namespace

void activation(Context& ctx, Activation act, const TensorView& x, const TensorView& y) {
  requireElementwise(ctx, "x", x);
  requireOutput(ctx, y, x, "x");
  pc::ElementwiseParams p{};
  p.count = static_cast<uint32_t>(x.numel());
  p.bCols = p.count;
  dispatchElementwise(ctx, kActivation, x.dtype, p, p.count % 4 == 0, static_cast<uint32_t>(act), x.buffer, nullptr,
                      y.buffer, {"x"});
}

Tensor activation(Context& ctx, Activation act, const TensorView& x) {
  requireElementwise(ctx, "x", x);
  return detail::allocatingCall(ctx, x.shape, x.dtype, [&](const TensorView& y) { activation(ctx, act, x, y); });
}

void gatedActivation(Context& ctx, Activation act, const TensorView& gate, const TensorView& up, const TensorView& y) {
  requireElementwise(ctx, "gate", gate);
  requireElementwise(ctx, "up", up);
  detail::requireShape("up", up, gate.shape);
  detail::requireSameDtype("up", up, "gate", gate);
  requireOutput(ctx, y, gate, "gate");
  pc::ElementwiseParams p{};
  p.count = static_cast<uint32_t>(gate.numel());
  p.bCols = p.count;
  dispatchElementwise(ctx, kSwiglu, gate.dtype, p, p.count % 4 == 0, static_cast<uint32_t>(act), gate.buffer, up.buffer,
                      y.buffer, {"gate", "up"});
}

Tensor gatedActivation(Context& ctx, Activation act, const TensorView& gate, const TensorView& up) {
  requireElementwise(ctx, "gate", gate);
  return detail::allocatingCall(ctx, gate.shape, gate.dtype,
                                [&](const TensorView& y) { gatedActivation(ctx, act, gate, up, y); });
}

void swiglu(Context& ctx, const TensorView& gate, const TensorView& up, const TensorView& y) {
  gatedActivation(ctx, Activation::Silu, gate, up, y);
}

Tensor swiglu(Context& ctx, const TensorView& gate, const TensorView& up) {
  return gatedActivation(ctx, Activation::Silu, gate, up);
}

void add(Context& ctx, const TensorView& a, const TensorView& b, const TensorView& y) {
  requireElementwise(ctx, "a", a);
  requireElementwise(ctx, "b", b);
  detail::requireSameDtype("b", b, "a", a);
  if (b.shape != a.shape && b.shape != Shape{a.dim(-1)})
    throw InvalidArgument("b", "shape " + toString(b.shape) + ", expected a's " + toString(a.shape) + " or [" +
                                   std::to_string(a.dim(-1)) + "] (one row added to each of a's rows)");
  requireOutput(ctx, y, a, "a");
  if (b.shape != a.shape && y.buffer == b.buffer)
    throw InvalidArgument("y", "shares a buffer with the broadcast b, which every row reads");
  pc::ElementwiseParams p{};
  p.count = static_cast<uint32_t>(a.numel());
  p.bCols = static_cast<uint32_t>(b.numel());
  dispatchElementwise(ctx, kAdd, a.dtype, p, p.count % 4 == 0 && p.bCols % 4 == 0, 0, a.buffer, b.buffer, y.buffer,
                      {"a", "b"});
}

Tensor add(Context& ctx, const TensorView& a, const TensorView& b) {
  requireElementwise(ctx, "a", a);
  return detail::allocatingCall(ctx, a.shape, a.dtype, [&](const TensorView& y) { add(ctx, a, b, y); });
}

namespace detail {

// Activations, SwiGLU, add and the embedding gather (exact for block-format tables against the
// host's decoding).
VKATTN_OP_ROW(elementwise) {
  OpRow row{.name = "elementwise", .f32 = {1e-6, 1e-5}, .f16 = {1e-3, 1e-3}};
  // A decoded token's row of a 1B-class model's table, decoded from the file's format as it is gathered.
  for (DType format : {DType::F16, DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K})
    row.catalog.push_back(
        {std::string("embedding ") + toString(format) + " table 32000x2048", [format](Context& ctx) {
           embedding(ctx, ctx.tensor({32000, 2048}, format), ctx.tensor({1, 1}, DType::I32), ctx.tensor({1, 1, 2048}));
         }});
  return row;
}

}  // namespace detail

}  // namespace vkattn
