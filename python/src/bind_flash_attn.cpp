// flash-attn's Python API: flash_attn_func and flash_attn_varlen_func, with its layout
// ([B, L, H, D]; packed [total, H, D] for varlen) and semantics (flash_attn_args.hpp). Inference
// only: dropout_p must be 0. Each function is one vkattn::attention call (varlen: a packed batch).
// flash_attn_with_kvcache is in bind_flash_attn_kvcache.cpp.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <limits>
#include <utility>

#include "arrays.hpp"
#include "bindings.hpp"
#include "flash_attn_args.hpp"
#include "session.hpp"
#include "storage_format_args.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn::python {
namespace {

// The arguments both functions read first: q, k and v checked and read ([B, L, H, D], or varlen's
// packed [total, H, D]), whether the results stay on the device, and the size limits.
struct FlashInputs {
  SizeLimits limits;
  bool keep = false;
  ArrayInput q, k, v;
};
FlashInputs flashInputs(const py::object& q, const py::object& k, const py::object& v, bool varlen) {
  FlashInputs in{sizeLimits(), isDeviceTensor(q), {}, {}, {}};
  requireOneDtype(q, k, v);
  const int64_t rank = varlen ? 3 : 4;
  in.q = qkvInput(q, "q", rank, in.limits);
  in.k = qkvInput(k, "k", rank, in.limits, in.q.dtype);
  in.v = qkvInput(v, "v", rank, in.limits, in.q.dtype);
  requireKv(in.q, in.k, in.v, !varlen);
  return in;
}

// out, or (out, lse, None) for return_attn_probs, as flash-attn returns them (no probabilities).
py::object flashResult(Result out, Result lse, bool returnProbs) {
  if (!returnProbs) return toPython(std::move(out));
  return py::make_tuple(toPython(std::move(out)), toPython(std::move(lse)), py::none());
}

std::vector<int64_t> cuSeqlens(const py::object& value, const std::string& name, int64_t total,
                               const SizeLimits& limits) {
  const ArrayInput a = intInput(value, name, limits, 0, std::numeric_limits<int32_t>::max());
  if (a.shape.size() != 1 || a.shape[0] < 2)
    throw py::value_error("'" + name + "' must be 1-D with batch + 1 >= 2 entries, got shape " + toString(a.shape));
  const auto* p = static_cast<const int32_t*>(a.data());
  std::vector<int64_t> cu(p, p + a.shape[0]);
  if (cu.front() != 0) throw py::value_error("'" + name + "' must start at 0");
  for (std::size_t i = 1; i < cu.size(); ++i)
    if (cu[i] < cu[i - 1]) throw py::value_error("'" + name + "' must not decrease");
  if (cu.back() != total)
    throw py::value_error("'" + name + "' ends at " + std::to_string(cu.back()) + ", but the packed tensor has " +
                          std::to_string(total) + " rows");
  return cu;
}

py::object flashAttnFunc(const py::object& q, const py::object& k, const py::object& v, const py::object& dropout,
                         const py::object& scale, bool causal, const py::object& window, const py::object& softcap,
                         const py::object& alibi, bool /*deterministic*/, bool returnProbs, const py::object& sinks,
                         const py::object& kvDtype) {
  const FlashInputs in = flashInputs(q, k, v, false);
  const ArrayInput &hq = in.q, &hk = in.k, &hv = in.v;
  const SizeLimits& limits = in.limits;
  const bool keep = in.keep;
  const DType kvAs = kvStorage(kvDtypeArgument(kvDtype, hk.shape[3], hv.shape[3]), hq, hk);
  const int64_t b = hq.shape[0], lq = hq.shape[1], h = hq.shape[2];
  const LogitArgs args = logitArgs(dropout, scale, causal, window, softcap, alibi, sinks, b, h, limits);
  auto [out, lse] = onDevice([&](Context& ctx) {
    const DeviceLogitArgs logits(ctx, args);
    const DeviceInput tq = upload(ctx, hq), tk = upload(ctx, hk, kvAs), tv = upload(ctx, hv, kvAs);
    Tensor tout = ctx.tensor({b, lq, h, hv.shape[3]}, hq.dtype), tlse = ctx.tensor({b, h, lq});
    AttentionOptions o = logits.options(std::nullopt);
    o.lse = tlse.view();
    const std::vector<int> bhld = {0, 2, 1, 3};
    attention(ctx, tq.view().permuted(bhld), tk.view().permuted(bhld), tv.view().permuted(bhld),
              tout.view().permuted(bhld), o);
    return std::pair{finish(std::move(tout), keep), finish(std::move(tlse), keep)};
  });
  return flashResult(std::move(out), std::move(lse), returnProbs);
}

py::object flashAttnVarlenFunc(const py::object& q, const py::object& k, const py::object& v, const py::object& cuQ,
                               const py::object& cuK, const py::object& maxQ, const py::object& maxK,
                               const py::object& dropout, const py::object& scale, bool causal,
                               const py::object& window, const py::object& softcap, const py::object& alibi,
                               bool /*deterministic*/, bool returnProbs, const py::object& sinks,
                               const py::object& kvDtype) {
  const FlashInputs in = flashInputs(q, k, v, true);
  const ArrayInput &hq = in.q, &hk = in.k, &hv = in.v;
  const SizeLimits& limits = in.limits;
  const bool keep = in.keep;
  const std::vector<int64_t> cq = cuSeqlens(cuQ, "cu_seqlens_q", hq.shape[0], limits),
                             ck = cuSeqlens(cuK, "cu_seqlens_k", hk.shape[0], limits);
  if (cq.size() != ck.size()) throw py::value_error("'cu_seqlens_k' and 'cu_seqlens_q' differ in length");
  const int64_t batch = static_cast<int64_t>(cq.size()) - 1, h = hq.shape[1], dv = hv.shape[2];
  const int64_t mq = intArgument(maxQ, "max_seqlen_q", 0), mk = intArgument(maxK, "max_seqlen_k", 0);
  for (int64_t s = 0; s < batch; ++s) {
    if (cq[s + 1] - cq[s] > mq) throw py::value_error("a query sequence is longer than 'max_seqlen_q'");
    if (ck[s + 1] - ck[s] > mk) throw py::value_error("a key sequence is longer than 'max_seqlen_k'");
  }
  const LogitArgs args = logitArgs(dropout, scale, causal, window, softcap, alibi, sinks, batch, h, limits);
  const int64_t totalQ = hq.shape[0];
  const DType kvAs = kvStorage(kvDtypeArgument(kvDtype, hk.shape[2], hv.shape[2]), hq, hk);
  const std::vector<int32_t> offsetsQ(cq.begin(), cq.end()), offsetsK(ck.begin(), ck.end());
  auto [out, lse] = onDevice([&](Context& ctx) {
    // One dispatch for the whole packed batch (AttentionOptions::cuSeqlensQ / cuSeqlensK);
    // flash-attn's varlen lse layout, [H, total_q], is the packed batch's [1, H, total_q].
    const DeviceLogitArgs logits(ctx, args);
    const DeviceInput tq = upload(ctx, hq), tk = upload(ctx, hk, kvAs), tv = upload(ctx, hv, kvAs);
    Tensor tout = ctx.tensor({totalQ, h, dv}, hq.dtype), tlse = ctx.tensor({1, h, totalQ});
    AttentionOptions o = logits.options(std::nullopt);
    o.cuSeqlensQ = offsetsQ;
    o.cuSeqlensK = offsetsK;
    o.lse = tlse.view();
    attention(ctx, oneSequence(tq.view()), oneSequence(tk.view()), oneSequence(tv.view()), oneSequence(tout.view()), o);
    return std::pair{finish(std::move(tout), keep), finish(std::move(tlse), keep, Shape{h, totalQ})};
  });
  return flashResult(std::move(out), std::move(lse), returnProbs);
}

}  // namespace

void bindFlashAttn(py::module_& m) {
  m.def("flash_attn_func", &flashAttnFunc, py::arg("q"), py::arg("k"), py::arg("v"), py::arg("dropout_p") = 0.0,
        py::arg("softmax_scale") = py::none(), py::arg("causal") = false,
        py::arg("window_size") = py::make_tuple(-1, -1), py::arg("softcap") = 0.0, py::arg("alibi_slopes") = py::none(),
        py::arg("deterministic") = false, py::arg("return_attn_probs") = false, py::kw_only(),
        py::arg("sinks") = py::none(), py::arg("kv_dtype") = py::none(),
        "flash-attn's flash_attn_func: q (B, Lq, H, D), k and v (B, Lk, Hkv, D|Dv) -> (B, Lq, H, Dv). Causal "
        "and windows align to the bottom-right corner; window_size=(left, right), -1 unbounded; softcap 0 is off; "
        "alibi_slopes (H,) or (B, H); sinks (H,). return_attn_probs returns (out, softmax_lse (B, H, Lq), None). "
        "kv_dtype 'bf16', 'q8_0' or "
        "'q4_0' stores k and v on the device in that format (vkattn.quantize's rounding).");
  m.def("flash_attn_varlen_func", &flashAttnVarlenFunc, py::arg("q"), py::arg("k"), py::arg("v"),
        py::arg("cu_seqlens_q"), py::arg("cu_seqlens_k"), py::arg("max_seqlen_q"), py::arg("max_seqlen_k"),
        py::arg("dropout_p") = 0.0, py::arg("softmax_scale") = py::none(), py::arg("causal") = false,
        py::arg("window_size") = py::make_tuple(-1, -1), py::arg("softcap") = 0.0, py::arg("alibi_slopes") = py::none(),
        py::arg("deterministic") = false, py::arg("return_attn_probs") = false, py::kw_only(),
        py::arg("sinks") = py::none(), py::arg("kv_dtype") = py::none(),
        "flash-attn's flash_attn_varlen_func on packed sequences: q (total_q, H, D), k and v (total_k, Hkv, "
        "D|Dv), cu_seqlens_q/k (B + 1,) int32 offsets. Every mask applies per sequence. return_attn_probs "
        "returns (out, softmax_lse (H, total_q), None). kv_dtype as flash_attn_func's.");
}

}  // namespace vkattn::python
