// softmax, log_softmax, argmax, layer_norm, rms_norm and rope on NumPy arrays.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <limits>

#include "arrays.hpp"
#include "bindings.hpp"
#include "device_tensor.hpp"
#include "session.hpp"
#include "vkattn/ops/rope.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn::python {
namespace {

// The rope kernel keeps positions within +-2^30 so that its phase arithmetic stays exact.
constexpr int64_t kPositionLimit = int64_t{1} << 30;

std::optional<ArrayInput> optionalInput(const py::object& value, const std::string& name, const SizeLimits& limits,
                                        DType dtype) {
  if (value.is_none()) return std::nullopt;
  return floatInput(value, name, limits, dtype);
}

// softmax or log_softmax (rowOp(ctx, x, y) over the last dim of a 2-d x) along one axis.
template <typename RowOp>
py::object alongAxis(const py::object& xValue, const py::object& axisValue, RowOp rowOp) {
  const SizeLimits limits = sizeLimits();
  const bool keep = isDeviceTensor(xValue);
  ArrayInput x = floatInput(xValue, "x", limits);
  const auto rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) throw py::value_error("'x' must have at least one dimension");
  const int64_t a = intArgument(axisValue, "axis", -rank, rank - 1), axis = a < 0 ? a + rank : a;
  const int64_t last = rank - 1;
  py::module_ np = py::module_::import("numpy");
  if (axis != last) {
    // Another axis: the rows are gathered on the host (a vkattn.Tensor goes there and back).
    x = hostArray(
        np.attr("ascontiguousarray")(np.attr("moveaxis")(x.resident ? hostValue(xValue) : x.array, axis, last)),
        x.dtype, "x");
    py::array out = toNumpy(onDevice([&](Context& ctx) {
      const DeviceInput t = upload(ctx, x);
      Tensor flat = ctx.tensor({elementCount(x.shape) / x.shape.back(), x.shape.back()}, x.dtype);
      rowOp(ctx, t.view().reshaped(flat.shape()), flat);
      return download(flat, x.shape);
    }));
    py::object moved = np.attr("ascontiguousarray")(np.attr("moveaxis")(out, last, axis));
    return keep ? asarray(moved, py::none()) : moved;
  }
  return toPython(onDevice([&](Context& ctx) {
    const DeviceInput t = upload(ctx, x);
    // The kernels take rank <= 4; rows are independent, so fold the leading dims into one.
    Tensor flat = ctx.tensor({elementCount(x.shape) / x.shape.back(), x.shape.back()}, x.dtype);
    rowOp(ctx, t.view().reshaped(flat.shape()), flat);
    return finish(std::move(flat), keep, x.shape);
  }));
}

py::object softmaxArray(const py::object& xValue, const py::object& axisValue) {
  return alongAxis(xValue, axisValue,
                   [](Context& ctx, const TensorView& x, const TensorView& y) { softmax(ctx, x, y); });
}

py::object logSoftmaxArray(const py::object& xValue, const py::object& axisValue) {
  return alongAxis(xValue, axisValue,
                   [](Context& ctx, const TensorView& x, const TensorView& y) { logSoftmax(ctx, x, y); });
}

// numpy.argmax along one axis (the first index among equal values), for float arrays.
py::object argmaxArray(const py::object& xValue, const py::object& axisValue) {
  const SizeLimits limits = sizeLimits();
  ArrayInput x = floatInput(xValue, "x", limits);
  const auto rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) throw py::value_error("'x' must have at least one dimension");
  const int64_t a = intArgument(axisValue, "axis", -rank, rank - 1), axis = a < 0 ? a + rank : a;
  if (x.shape[static_cast<std::size_t>(axis)] == 0) throw py::value_error("'x' has no values along 'axis'");
  py::module_ np = py::module_::import("numpy");
  if (axis != rank - 1)  // the rows are gathered on the host (a vkattn.Tensor goes there and back)
    x = hostArray(np.attr("ascontiguousarray")(np.attr("moveaxis")(x.resident ? hostValue(xValue) : x.array, axis, -1)),
                  x.dtype, "x");
  Shape rest(x.shape.begin(), x.shape.end() - 1);
  py::array ids = toNumpy(onDevice([&](Context& ctx) {
    const DeviceInput t = upload(ctx, x);
    const int64_t cols = x.shape.back();
    return download(argmax(ctx, t.view().reshaped({elementCount(x.shape) / cols, cols})), rest);
  }));
  py::object out = ids.attr("astype")(np.attr("intp"));
  return rank == 1 ? py::object(out[py::tuple()]) : out;  // a NumPy scalar for a 1-d x, as numpy.argmax
}

}  // namespace

void bindRowOps(py::module_& m) {
  m.def("argmax", &argmaxArray, py::arg("x"), py::arg("axis") = -1,
        "The index of the largest value along one axis, the first among equal ones (numpy.argmax with an "
        "axis); a language model's greedy token. NaN in x raises ValueError.");
  m.def("softmax", &softmaxArray, py::arg("x"), py::arg("axis") = -1,
        "softmax over one axis (exp(x - max) / sum). Rows of all -inf give zeros.");
  m.def("log_softmax", &logSoftmaxArray, py::arg("x"), py::arg("axis") = -1,
        "log_softmax over one axis (x - log(sum(exp(x))), as torch.log_softmax): each row's log-probabilities. "
        "-inf stays -inf; NaN or +inf in x raises ValueError.");
  m.def(
      "layer_norm",
      [](const py::object& xValue, const py::object& weight, const py::object& bias, const py::object& epsValue) {
        const SizeLimits limits = sizeLimits();
        const bool keep = isDeviceTensor(xValue);
        const ArrayInput x = floatInput(xValue, "x", limits);
        const auto w = optionalInput(weight, "weight", limits, x.dtype),
                   b = optionalInput(bias, "bias", limits, x.dtype);
        const double eps = finiteArgument(epsValue, "eps");
        return toPython(onDevice([&](Context& ctx) {
          const DeviceInput t = upload(ctx, x);
          std::optional<DeviceInput> tw, tb;
          LayerNormOptions o{.eps = static_cast<float>(eps)};
          if (w) o.weight = (tw = upload(ctx, *w))->view();
          if (b) o.bias = (tb = upload(ctx, *b))->view();
          return finish(layerNorm(ctx, t, o), keep);
        }));
      },
      py::arg("x"), py::arg("weight") = py::none(), py::arg("bias") = py::none(), py::arg("eps") = 1e-5,
      "LayerNorm over the last axis (biased variance, as torch.nn.functional.layer_norm).");
  m.def(
      "rms_norm",
      [](const py::object& xValue, const py::object& weight, const py::object& epsValue, const py::object& residual) {
        const SizeLimits limits = sizeLimits();
        const bool keep = isDeviceTensor(xValue);
        const ArrayInput x = floatInput(xValue, "x", limits);
        const auto w = optionalInput(weight, "weight", limits, x.dtype);
        const double eps = finiteArgument(epsValue, "eps");
        const auto r = optionalInput(residual, "residual", limits, x.dtype);
        if (r && r->shape != x.shape)
          throw py::value_error("'residual' has shape " + toString(r->shape) + "; it must have x's shape " +
                                toString(x.shape));
        return toPython(onDevice([&](Context& ctx) {
          const DeviceInput t = upload(ctx, x);
          std::optional<DeviceInput> tw, tr;
          RmsNormOptions o{.eps = static_cast<float>(eps)};
          if (w) o.weight = (tw = upload(ctx, *w))->view();
          if (r) o.residual = (tr = upload(ctx, *r))->view();
          return finish(rmsNorm(ctx, t, o), keep);
        }));
      },
      py::arg("x"), py::arg("weight") = py::none(), py::arg("eps") = 1e-6, py::arg("residual") = py::none(),
      "RMSNorm over the last axis; with residual (x's shape), residual + the norm in one pass.");
  m.def(
      "rope",
      [](const py::object& xValue, const py::object& positions, const py::object& thetaValue, bool interleaved,
         const py::object& rotaryDim) {
        const SizeLimits limits = sizeLimits();
        const bool keep = isDeviceTensor(xValue);
        const ArrayInput x = floatInput(xValue, "x", limits);
        RopeOptions o{.theta = finiteArgument(thetaValue, "theta"), .interleaved = interleaved};
        if (!rotaryDim.is_none()) o.rotaryDim = intArgument(rotaryDim, "rotary_dim", 1, kInt32Max);
        std::optional<ArrayInput> pos;
        if (PyIndex_Check(positions.ptr()) && !py::isinstance<py::array>(positions))
          o.positionOffset = intArgument(positions, "positions", -kPositionLimit, kPositionLimit);
        else
          pos = intInput(positions, "positions", limits, -kPositionLimit, kPositionLimit);
        return toPython(onDevice([&](Context& ctx) {
          const DeviceInput t = upload(ctx, x);
          std::optional<DeviceInput> tp;
          if (pos) o.positions = (tp = upload(ctx, *pos))->view();
          return finish(rope(ctx, t, o), keep);
        }));
      },
      py::arg("x"), py::arg("positions"), py::arg("theta") = 10000.0, py::arg("interleaved") = false,
      py::arg("rotary_dim") = py::none(),
      "Rotary position embedding of x (B, H, L, D). positions: ints of shape (L,) or (B, L), or an int offset.");
}

}  // namespace vkattn::python
