// softmax, layer_norm, rms_norm and rope on NumPy arrays.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "session.hpp"
#include "vkattn/ops/rope.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn::python {
namespace {

std::optional<Tensor> optionalTensor(Context& ctx, const py::object& value, const std::string& name, DType dtype) {
  if (value.is_none()) return std::nullopt;
  py::array a = floatArray(value, name);
  if (dtypeOf(a) != dtype) a = py::array(a.attr("astype")(dtype == DType::F16 ? "float16" : "float32"));
  return toTensor(ctx, a);
}

py::array softmaxArray(const py::object& xValue, int axis) {
  Context& ctx = session();
  py::array x = floatArray(xValue, "x");
  if (x.ndim() == 0) throw py::value_error("'x' must have at least one dimension");
  if (axis < -x.ndim() || axis >= x.ndim())
    throw py::value_error("'axis' " + std::to_string(axis) + " is out of range for an array of " +
                          std::to_string(x.ndim()) + " dimensions");
  const int last = static_cast<int>(x.ndim()) - 1;
  const int a = axis < 0 ? axis + static_cast<int>(x.ndim()) : axis;
  py::module_ np = py::module_::import("numpy");
  py::array moved = a == last ? x : py::array(np.attr("ascontiguousarray")(np.attr("moveaxis")(x, a, last)));
  Tensor t = toTensor(ctx, moved);
  const Shape shape = t.shape();
  // The kernel takes rank <= 4; rows are independent, so fold the leading dims into one.
  Tensor flat = ctx.tensor({t.numel() / shape.back(), shape.back()}, t.dtype());
  TensorView in = t.view();
  in.shape = flat.shape();
  in.strides = contiguousStrides(in.shape);
  softmax(ctx, in, flat);
  py::array out = toArray(flat).attr("reshape")(py::tuple(py::cast(std::vector<py::ssize_t>(shape.begin(), shape.end()))));
  return a == last ? out : py::array(np.attr("ascontiguousarray")(np.attr("moveaxis")(out, last, a)));
}

}  // namespace

void bindRowOps(py::module_& m) {
  m.def("softmax", &softmaxArray, py::arg("x"), py::arg("axis") = -1,
        "softmax over one axis (exp(x - max) / sum). Rows of all -inf give zeros.");
  m.def(
      "layer_norm",
      [](const py::object& xValue, const py::object& weight, const py::object& bias, double eps) {
        Context& ctx = session();
        py::array x = floatArray(xValue, "x");
        Tensor t = toTensor(ctx, x);
        auto w = optionalTensor(ctx, weight, "weight", t.dtype());
        auto b = optionalTensor(ctx, bias, "bias", t.dtype());
        LayerNormOptions o{.eps = static_cast<float>(eps)};
        if (w) o.weight = w->view();
        if (b) o.bias = b->view();
        return toArray(layerNorm(ctx, t, o));
      },
      py::arg("x"), py::arg("weight") = py::none(), py::arg("bias") = py::none(), py::arg("eps") = 1e-5,
      "LayerNorm over the last axis (biased variance, as torch.nn.functional.layer_norm).");
  m.def(
      "rms_norm",
      [](const py::object& xValue, const py::object& weight, double eps) {
        Context& ctx = session();
        Tensor t = toTensor(ctx, floatArray(xValue, "x"));
        auto w = optionalTensor(ctx, weight, "weight", t.dtype());
        RmsNormOptions o{.eps = static_cast<float>(eps)};
        if (w) o.weight = w->view();
        return toArray(rmsNorm(ctx, t, o));
      },
      py::arg("x"), py::arg("weight") = py::none(), py::arg("eps") = 1e-6, "RMSNorm over the last axis.");
  m.def(
      "rope",
      [](const py::object& xValue, const py::object& positions, double theta, bool interleaved,
         const std::optional<int64_t>& rotaryDim) {
        Context& ctx = session();
        Tensor t = toTensor(ctx, floatArray(xValue, "x"));
        RopeOptions o{.theta = theta, .interleaved = interleaved, .rotaryDim = rotaryDim.value_or(0)};
        std::optional<Tensor> pos;
        if (py::isinstance<py::int_>(positions)) {
          o.positionOffset = positions.cast<int64_t>();
        } else {
          pos = toIntTensor(ctx, positions, "positions");
          o.positions = pos->view();
        }
        return toArray(rope(ctx, t, o));
      },
      py::arg("x"), py::arg("positions"), py::arg("theta") = 10000.0, py::arg("interleaved") = false,
      py::arg("rotary_dim") = py::none(),
      "Rotary position embedding of x (B, H, L, D). positions: ints of shape (L,) or (B, L), or an int offset.");
}

}  // namespace vkattn::python
