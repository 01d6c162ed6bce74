// flash-attn's Python API on NumPy arrays: flash_attn_func, flash_attn_varlen_func and
// flash_attn_with_kvcache, with its layout ([B, L, H, D]; packed [total, H, D] for varlen) and
// semantics: causal aligned to the bottom-right corner of each sequence, window_size (left, right)
// with -1 unbounded, softcap 0 off, ALiBi slopes [H] or [B, H], attention sinks [H]. Inference
// only: dropout_p must be 0. Each function is one vkattn::attention call on the uploaded inputs
// (varlen: a packed batch; with_kvcache: the caches as they are), except with cache_leftpad, which
// records one call per sequence into one submission.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "arrays.hpp"
#include "bindings.hpp"
#include "session.hpp"
#include "storage_format_args.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn::python {
namespace {

// The options every entry point shares, checked with the GIL held.
struct LogitArgs {
  std::optional<float> scale;
  bool causal = false;
  std::optional<int64_t> windowLeft, windowRight;
  float softcap = 0.0f;
  std::optional<HostArray> alibi;  // [H] or [B, H]
  std::optional<HostArray> sinks;  // [H]
};

LogitArgs logitArgs(const py::object& dropout, const py::object& scale, bool causal, const py::object& window,
                    const py::object& softcap, const py::object& alibi, const py::object& sinks, int64_t batch,
                    int64_t heads, const SizeLimits& limits) {
  LogitArgs a;
  if (!dropout.is_none() && finiteArgument(dropout, "dropout_p") != 0.0)
    throw py::value_error("'dropout_p' must be 0: vkattn runs attention for inference only");
  if (!scale.is_none()) a.scale = static_cast<float>(finiteArgument(scale, "softmax_scale"));
  a.causal = causal;
  const auto sides = py::cast<py::sequence>(window);
  if (sides.size() != 2) throw py::value_error("'window_size' must be a pair (left, right), -1 for unbounded");
  const int64_t left = intArgument(sides[0], "window_size", -1), right = intArgument(sides[1], "window_size", -1);
  if (left >= 0) a.windowLeft = left;
  if (right >= 0) a.windowRight = right;
  const double cap = finiteArgument(softcap, "softcap");
  if (cap < 0.0) throw py::value_error("'softcap' must be >= 0 (0 turns it off)");
  a.softcap = static_cast<float>(cap);
  if (!alibi.is_none()) {
    a.alibi = floatInput(alibi, "alibi_slopes", limits, DType::F32);
    const Shape& s = a.alibi->shape;
    if (!(s == Shape{heads}) && !(s == Shape{batch, heads}))
      throw py::value_error("'alibi_slopes' must have shape (" + std::to_string(heads) + ",) or (" +
                            std::to_string(batch) + ", " + std::to_string(heads) + "), got " + toString(s));
  }
  if (!sinks.is_none()) {
    a.sinks = floatInput(sinks, "sinks", limits, DType::F32);
    if (!(a.sinks->shape == Shape{heads}))
      throw py::value_error("'sinks' must have shape (" + std::to_string(heads) + ",), got " +
                            toString(a.sinks->shape));
  }
  return a;
}

// LogitArgs' slopes and sinks on the device; options() gives sequence b's AttentionOptions
// (its row of [B, H] slopes) for `batch` sequences in one call (1 for one sequence).
struct DeviceLogitArgs {
  const LogitArgs& args;
  std::optional<Tensor> alibi, sinks;

  DeviceLogitArgs(Context& ctx, const LogitArgs& a) : args(a) {
    if (a.alibi) alibi = upload(ctx, *a.alibi);
    if (a.sinks) sinks = upload(ctx, *a.sinks);
  }
  AttentionOptions options(std::optional<int64_t> sequence) const {
    AttentionOptions o;
    o.scale = args.scale;
    o.causal = args.causal;
    o.alignment = MaskAlignment::BottomRight;
    o.windowLeft = args.windowLeft;
    o.windowRight = args.windowRight;
    o.softcap = args.softcap;
    if (sinks) o.sinks = sinks->view();
    if (alibi) {
      TensorView slopes = alibi->view();
      if (slopes.rank() == 2 && sequence) slopes = slopes.sliced(0, *sequence, 1).reshaped({slopes.dim(1)});
      o.alibiSlopes = slopes;
    }
    return o;
  }
};

// A [L, H, D] view (rows of a packed or batched array) as the [1, H, L, D] view attention takes.
TensorView oneSequence(const TensorView& lhd) {
  TensorView v = lhd;
  v.shape = {1, lhd.dim(1), lhd.dim(0), lhd.dim(2)};
  v.strides = {lhd.dim(0) * lhd.strides[0], lhd.strides[1], lhd.strides[0], 1};
  return v;
}

HostArray qkvInput(const py::object& value, const std::string& name, int64_t rank, const SizeLimits& limits,
                   std::optional<DType> as = std::nullopt) {
  HostArray a = floatInput(value, name, limits, as);
  if (static_cast<int64_t>(a.shape.size()) != rank)
    throw py::value_error("'" + name + "' must have rank " + std::to_string(rank) + " (" +
                          (rank == 4 ? "batch, seqlen, heads, headdim" : "total, heads, headdim") + "), got shape " +
                          toString(a.shape));
  return a;
}

void requireKv(const HostArray& q, const HostArray& k, const HostArray& v, bool batched) {
  const std::size_t r = q.shape.size();
  if (k.shape[r - 1] != q.shape[r - 1])
    throw py::value_error("'k' head dim " + std::to_string(k.shape[r - 1]) + " differs from q's " +
                          std::to_string(q.shape[r - 1]));
  for (std::size_t i = 0; i + 1 < r; ++i)
    if (v.shape[i] != k.shape[i]) throw py::value_error("'v' shape " + toString(v.shape) + " does not match k's " + toString(k.shape));
  if (batched && k.shape[0] != q.shape[0]) throw py::value_error("'k' batch differs from q's");
  if (q.shape[r - 2] % k.shape[r - 2] != 0)
    throw py::value_error("'k' has " + std::to_string(k.shape[r - 2]) + " heads, which do not divide q's " +
                          std::to_string(q.shape[r - 2]));
}

// The lse of a row that sees no key: -inf, or head h's sink.
float sinkOrNone(const LogitArgs& args, int64_t h) {
  return args.sinks ? static_cast<const float*>(args.sinks->data())[h] : -std::numeric_limits<float>::infinity();
}

// Zeros for the query rows of a sequence with no key at all.
void fillEmpty(HostResult& out, int64_t rowStart, int64_t rows, int64_t rowElems) {
  const std::size_t e = dtypeSize(out.dtype);
  std::memset(out.bytes.data() + static_cast<std::size_t>(rowStart * rowElems) * e, 0,
              static_cast<std::size_t>(rows * rowElems) * e);
}

std::vector<int64_t> cuSeqlens(const py::object& value, const std::string& name, int64_t total,
                               const SizeLimits& limits) {
  const HostArray a = intInput(value, name, limits, 0, std::numeric_limits<int32_t>::max());
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
  const SizeLimits limits = sizeLimits();
  const HostArray hq = qkvInput(q, "q", 4, limits), hk = qkvInput(k, "k", 4, limits, hq.dtype),
                  hv = qkvInput(v, "v", 4, limits, hq.dtype);
  requireKv(hq, hk, hv, true);
  const DType kvAs = kvDtypeArgument(kvDtype, hk.shape[3], hv.shape[3]).value_or(hq.dtype);
  const int64_t b = hq.shape[0], lq = hq.shape[1], h = hq.shape[2];
  const LogitArgs args = logitArgs(dropout, scale, causal, window, softcap, alibi, sinks, b, h, limits);
  auto [out, lse] = onDevice([&](Context& ctx) {
    const DeviceLogitArgs logits(ctx, args);
    Tensor tq = upload(ctx, hq), tk = upload(ctx, hk, kvAs), tv = upload(ctx, hv, kvAs);
    Tensor tout = ctx.tensor({b, lq, h, hv.shape[3]}, hq.dtype), tlse = ctx.tensor({b, h, lq});
    AttentionOptions o = logits.options(std::nullopt);
    o.lse = tlse.view();
    const std::vector<int> bhld = {0, 2, 1, 3};
    attention(ctx, tq.view().permuted(bhld), tk.view().permuted(bhld), tv.view().permuted(bhld),
              tout.view().permuted(bhld), o);
    return std::pair{download(tout), download(tlse)};
  });
  if (!returnProbs) return toNumpy(out);
  return py::make_tuple(toNumpy(out), toNumpy(lse), py::none());
}

py::object flashAttnVarlenFunc(const py::object& q, const py::object& k, const py::object& v,
                               const py::object& cuQ, const py::object& cuK, const py::object& maxQ,
                               const py::object& maxK, const py::object& dropout, const py::object& scale, bool causal,
                               const py::object& window, const py::object& softcap, const py::object& alibi,
                               bool /*deterministic*/, bool returnProbs, const py::object& sinks,
                               const py::object& kvDtype) {
  const SizeLimits limits = sizeLimits();
  const HostArray hq = qkvInput(q, "q", 3, limits), hk = qkvInput(k, "k", 3, limits, hq.dtype),
                  hv = qkvInput(v, "v", 3, limits, hq.dtype);
  requireKv(hq, hk, hv, false);
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
  const DType kvAs = kvDtypeArgument(kvDtype, hk.shape[2], hv.shape[2]).value_or(hq.dtype);
  const std::vector<int32_t> offsetsQ(cq.begin(), cq.end()), offsetsK(ck.begin(), ck.end());
  auto [out, lse] = onDevice([&](Context& ctx) {
    // One dispatch for the whole packed batch (AttentionOptions::cuSeqlensQ / cuSeqlensK);
    // flash-attn's varlen lse layout, [H, total_q], is the packed batch's [1, H, total_q].
    const DeviceLogitArgs logits(ctx, args);
    Tensor tq = upload(ctx, hq), tk = upload(ctx, hk, kvAs), tv = upload(ctx, hv, kvAs);
    Tensor tout = ctx.tensor({totalQ, h, dv}, hq.dtype), tlse = ctx.tensor({1, h, totalQ});
    AttentionOptions o = logits.options(std::nullopt);
    o.cuSeqlensQ = offsetsQ;
    o.cuSeqlensK = offsetsK;
    o.lse = tlse.view();
    attention(ctx, oneSequence(tq.view()), oneSequence(tk.view()), oneSequence(tv.view()), oneSequence(tout.view()), o);
    return std::pair{download(tout), download(tlse, Shape{h, totalQ})};
  });
  if (!returnProbs) return toNumpy(out);
  return py::make_tuple(toNumpy(out), toNumpy(lse), py::none());
}

// A KV cache argument: a writable float ndarray (new keys are appended to it in place).
py::array cacheArray(const py::object& value, const std::string& name, bool writable) {
  if (!py::isinstance<py::array>(value))
    throw py::type_error("'" + name + "' must be a numpy array (it is updated in place)");
  py::array a = py::reinterpret_borrow<py::array>(value);
  if (a.ndim() != 4)
    throw py::value_error("'" + name + "' must have rank 4 ((batch|blocks), seqlen|block_size, heads, headdim)");
  if (a.dtype().kind() != 'f') throw py::type_error("'" + name + "' must be a float array");
  if (writable && !a.writeable()) throw py::value_error("'" + name + "' is read-only; k/v would be appended to it");
  return a;
}

// flash-attn's rotary tables: cos and sin (seqlen_ro, rotary_dim / 2), as float32.
struct RotaryTables {
  py::array_t<float, py::array::c_style | py::array::forcecast> cos, sin;
  int64_t rows = 0, half = 0;
};

RotaryTables rotaryTables(const py::object& cos, const py::object& sin, int64_t headDim) {
  if (cos.is_none() || sin.is_none()) throw py::value_error("'rotary_cos' and 'rotary_sin' must be given together");
  RotaryTables t;
  t.cos = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(cos);
  t.sin = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(sin);
  if (!t.cos || !t.sin) throw py::type_error("'rotary_cos'/'rotary_sin' must be float arrays");
  if (t.cos.ndim() != 2 || t.cos.shape(1) < 1)
    throw py::value_error("'rotary_cos' must have shape (seqlen_ro, rotary_dim / 2)");
  if (t.sin.ndim() != 2 || t.sin.shape(0) != t.cos.shape(0) || t.sin.shape(1) != t.cos.shape(1))
    throw py::value_error("'rotary_sin' must have the shape of 'rotary_cos'");
  t.rows = t.cos.shape(0);
  t.half = t.cos.shape(1);
  if (2 * t.half > headDim)
    throw py::value_error("'rotary_cos' rotates " + std::to_string(2 * t.half) + " features, more than the head dim " +
                          std::to_string(headDim));
  return t;
}

// flash-attn's rotary embedding of x (B, L, H, D), in float32: row (b, l) turns by table row
// position(b, l) the pairs (i, i + rotary_dim / 2) (GPT-NeoX) or (2i, 2i + 1) (interleaved, GPT-J)
// of its first rotary_dim features; the rest stay. Returns a float32 array.
template <typename Position>
py::array rotated(const py::object& x, const std::string& name, const RotaryTables& t, bool interleaved,
                  Position position) {
  auto a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(x);
  if (!a || a.ndim() != 4) throw py::value_error("'" + name + "' must have rank 4 (batch, seqlen, heads, headdim)");
  py::array_t<float> out(std::vector<py::ssize_t>(a.shape(), a.shape() + 4));
  const int64_t b = a.shape(0), l = a.shape(1), h = a.shape(2), d = a.shape(3);
  const float* in = a.data();
  float* o = out.mutable_data();
  std::copy_n(in, static_cast<std::size_t>(a.size()), o);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t li = 0; li < l; ++li) {
      const int64_t pos = position(bi, li);
      if (pos >= t.rows)
        throw py::value_error("'rotary_cos' has " + std::to_string(t.rows) + " rows; sequence " + std::to_string(bi) +
                              " needs position " + std::to_string(pos));
      const float* c = t.cos.data() + pos * t.half;
      const float* s = t.sin.data() + pos * t.half;
      for (int64_t hi = 0; hi < h; ++hi) {
        float* row = o + ((bi * l + li) * h + hi) * d;
        for (int64_t i = 0; i < t.half; ++i) {
          const int64_t x0 = interleaved ? 2 * i : i, x1 = interleaved ? 2 * i + 1 : i + t.half;
          const float u = row[x0], v = row[x1];
          row[x0] = u * c[i] - v * s[i];
          row[x1] = u * s[i] + v * c[i];
        }
      }
    }
  return out;
}

// out (B, Lq, H, Dv) and lse (B, H, Lq) of flash_attn_with_kvcache.
using CacheResult = std::pair<HostResult, HostResult>;

// The whole batch in one call on the caches as they are: dense rows (those of cache_batch_idx,
// in batch order) or the paged cache with its block table, read by the kernel; each sequence's
// length as keyLengths, its causal diagonal and windows ending at its own last key.
CacheResult attendCache(const HostArray& hq, const py::array& kc, const py::array& vc,
                        const std::vector<std::vector<int64_t>>& blocks, const std::vector<int64_t>& lens, bool paged,
                        const LogitArgs& args, DType kvAs, const SizeLimits& limits) {
  const int64_t batch = hq.shape[0], lq = hq.shape[1], h = hq.shape[2], dv = vc.shape(3);
  py::object kRows = kc, vRows = vc;
  std::vector<int32_t> table;
  if (paged) {
    for (const auto& row : blocks)
      for (int64_t block : row) table.push_back(static_cast<int32_t>(block));
  } else {
    py::list rows;
    for (const auto& row : blocks) rows.append(row[0]);
    kRows = kc[py::array(rows)];
    vRows = vc[py::array(rows)];
  }
  const HostArray hk = floatInput(kRows, "k_cache", limits, hq.dtype), hv = floatInput(vRows, "v_cache", limits, hq.dtype);
  std::vector<int32_t> lengths(lens.begin(), lens.end());
  return onDevice([&](Context& ctx) {
    const DeviceLogitArgs logits(ctx, args);
    Tensor tq = upload(ctx, hq), tk = upload(ctx, hk, kvAs), tv = upload(ctx, hv, kvAs);
    Tensor tLens = Tensor::fromHostInt(ctx.device(), {batch}, lengths);
    Tensor tout = ctx.tensor({batch, lq, h, dv}, hq.dtype), tlse = ctx.tensor({batch, h, lq});
    std::optional<Tensor> tTable;
    AttentionOptions o = logits.options(std::nullopt);
    o.alignment = MaskAlignment::BottomRightOfKeyLengths;
    o.keyLengths = tLens.view();
    o.lse = tlse.view();
    if (paged) {
      tTable = Tensor::fromHostInt(ctx.device(), {batch, static_cast<int64_t>(blocks.front().size())}, table);
      o.blockTable = tTable->view();
    }
    const std::vector<int> bhld = {0, 2, 1, 3};
    attention(ctx, tq.view().permuted(bhld), tk.view().permuted(bhld), tv.view().permuted(bhld),
              tout.view().permuted(bhld), o);
    return CacheResult{download(tout), download(tlse)};
  });
}

// Dense caches with left padding: sequence b's keys are [first[b], lens[b]) of its cache row,
// one attention call each (all in one submission).
CacheResult attendEachSequence(const HostArray& hq, const py::array& kc, const py::array& vc,
                               const std::vector<std::vector<int64_t>>& blocks, const std::vector<int64_t>& lens,
                               const std::vector<int64_t>& first, const LogitArgs& args, DType kvAs,
                               const SizeLimits& limits) {
  const int64_t batch = hq.shape[0], lq = hq.shape[1], h = hq.shape[2], d = hq.shape[3], dv = vc.shape(3);
  std::vector<std::optional<HostArray>> keys(static_cast<std::size_t>(batch)), values(keys.size());
  for (int64_t b = 0; b < batch; ++b) {
    if (lens[b] == first[b]) continue;
    const py::tuple at = py::make_tuple(blocks[b][0], py::slice(first[b], lens[b], 1));
    keys[b] = floatInput(kc[at], "k_cache", limits, hq.dtype);
    values[b] = floatInput(vc[at], "v_cache", limits, hq.dtype);
  }
  return onDevice([&](Context& ctx) {
    const DeviceLogitArgs logits(ctx, args);
    Tensor tq = upload(ctx, hq), tout = ctx.tensor({batch, lq, h, dv}, hq.dtype);
    HostResult hostLse{{batch, h, lq}, DType::F32, std::vector<uint8_t>(static_cast<std::size_t>(batch * h * lq) * 4)};
    auto* lseAt = reinterpret_cast<float*>(hostLse.bytes.data());
    std::vector<int64_t> empty;
    // Each sequence's keys, values and [1, H, Lq] lse, alive until the one submission has run.
    std::vector<std::pair<int64_t, std::array<Tensor, 3>>> seqs;
    Batch work(ctx);
    for (int64_t b = 0; b < batch; ++b) {
      if (!keys[b]) {
        empty.push_back(b);
        continue;
      }
      auto& [tk, tv, seqLse] =
          seqs.emplace_back(b, std::array{upload(ctx, *keys[b], kvAs), upload(ctx, *values[b], kvAs), ctx.tensor({1, h, lq})})
              .second;
      AttentionOptions o = logits.options(b);
      o.lse = seqLse.view();
      attention(ctx, oneSequence(tq.view().sliced(0, b, 1).reshaped({lq, h, d})), oneSequence(tk.view()),
                oneSequence(tv.view()), oneSequence(tout.view().sliced(0, b, 1).reshaped({lq, h, dv})), o);
    }
    work.submit();
    for (const auto& [b, tensors] : seqs) {
      const std::vector<float> rows = tensors[2].download();
      std::copy(rows.begin(), rows.end(), lseAt + b * h * lq);
    }
    HostResult hostOut = download(tout);
    for (int64_t b : empty) {
      fillEmpty(hostOut, b * lq, lq, h * dv);
      for (int64_t hh = 0; hh < h; ++hh) std::fill_n(lseAt + (b * h + hh) * lq, lq, sinkOrNone(args, hh));
    }
    return CacheResult{std::move(hostOut), std::move(hostLse)};
  });
}

py::object flashAttnWithKvcache(const py::object& q, const py::object& kCache, const py::object& vCache,
                                const py::object& k, const py::object& v, const py::object& rotaryCos,
                                const py::object& rotarySin, const py::object& cacheSeqlens,
                                const py::object& cacheBatchIdx, const py::object& cacheLeftpad,
                                const py::object& blockTable, const py::object& scale, bool causal,
                                const py::object& window, bool rotaryInterleaved, const py::object& softcap,
                                const py::object& alibi, const py::object& numSplits, bool returnLse,
                                const py::object& sinks, const py::object& kvDtype) {
  intArgument(numSplits, "num_splits", 0);  // the key split is chosen per device
  const SizeLimits limits = sizeLimits();
  HostArray hq = qkvInput(q, "q", 4, limits);
  const int64_t batch = hq.shape[0], h = hq.shape[2];
  const bool append = !k.is_none() || !v.is_none();
  if (append && (k.is_none() || v.is_none())) throw py::value_error("'k' and 'v' must be given together");
  py::array kc = cacheArray(kCache, "k_cache", append), vc = cacheArray(vCache, "v_cache", append);
  const bool paged = !blockTable.is_none();
  const int64_t hkv = kc.shape(2), d = kc.shape(3), dv = vc.shape(3);
  if (kc.shape(0) != vc.shape(0) || kc.shape(1) != vc.shape(1) || vc.shape(2) != hkv)
    throw py::value_error("'v_cache' does not match 'k_cache' in its first three dims");
  if (d != hq.shape[3]) throw py::value_error("'k_cache' head dim differs from q's");
  if (h % hkv != 0) throw py::value_error("'k_cache' heads do not divide q's heads");
  py::module_ np = py::module_::import("numpy");

  // Which cache rows (dense) or blocks (paged) hold sequence b, and how many keys each can hold.
  std::vector<std::vector<int64_t>> blocks(static_cast<std::size_t>(batch));
  int64_t capacity = kc.shape(1);
  if (paged) {
    const HostArray table = intInput(blockTable, "block_table", limits, 0, kc.shape(0) - 1);
    if (table.shape.size() != 2 || table.shape[0] != batch)
      throw py::value_error("'block_table' must have shape (" + std::to_string(batch) + ", max_blocks)");
    const auto* t = static_cast<const int32_t*>(table.data());
    for (int64_t b = 0; b < batch; ++b) blocks[b].assign(t + b * table.shape[1], t + (b + 1) * table.shape[1]);
    capacity = table.shape[1] * kc.shape(1);
  } else {
    for (int64_t b = 0; b < batch; ++b) blocks[b] = {b};
    if (!cacheBatchIdx.is_none()) {
      const HostArray idx = intInput(cacheBatchIdx, "cache_batch_idx", limits, 0, kc.shape(0) - 1);
      if (idx.shape != Shape{batch}) throw py::value_error("'cache_batch_idx' must have shape (" + std::to_string(batch) + ",)");
      for (int64_t b = 0; b < batch; ++b) blocks[b] = {static_cast<const int32_t*>(idx.data())[b]};
    } else if (kc.shape(0) < batch) {
      throw py::value_error("'k_cache' has fewer rows than q's batch");
    }
  }
  std::vector<int64_t> lens(static_cast<std::size_t>(batch), capacity);
  if (!cacheSeqlens.is_none()) {
    if (py::isinstance<py::int_>(cacheSeqlens)) {
      std::fill(lens.begin(), lens.end(), intArgument(cacheSeqlens, "cache_seqlens", 0, capacity));
    } else {
      const HostArray s = intInput(cacheSeqlens, "cache_seqlens", limits, 0, capacity);
      if (s.shape != Shape{batch}) throw py::value_error("'cache_seqlens' must have shape (" + std::to_string(batch) + ",)");
      for (int64_t b = 0; b < batch; ++b) lens[b] = static_cast<const int32_t*>(s.data())[b];
    }
  }
  // Cache position p of sequence b as (row or block, offset) for NumPy indexing.
  auto slot = [&](int64_t b, int64_t p) {
    return paged ? py::make_tuple(blocks[b][p / kc.shape(1)], p % kc.shape(1)) : py::make_tuple(blocks[b][0], p);
  };
  const LogitArgs args = logitArgs(py::float_(0.0), scale, causal, window, softcap, alibi, sinks, batch, h, limits);
  const DType kvAs = kvDtypeArgument(kvDtype, kc.shape(3), vc.shape(3)).value_or(hq.dtype);
  py::object kNew = k;
  if (!rotaryCos.is_none() || !rotarySin.is_none()) {
    // As flash-attn: the new keys turn at their cache positions cache_seqlens + t; the queries at
    // cache_seqlens + t when causal or windowed, else all at cache_seqlens.
    if (!append) throw py::value_error("'rotary_cos'/'rotary_sin' apply only when new 'k' and 'v' are given");
    const RotaryTables tables = rotaryTables(rotaryCos, rotarySin, d);
    const std::vector<int64_t> start = lens;
    const bool local = causal || args.windowLeft || args.windowRight;
    kNew = rotated(k, "k", tables, rotaryInterleaved, [&](int64_t b, int64_t t) { return start[b] + t; });
    hq = qkvInput(rotated(q, "q", tables, rotaryInterleaved,
                          [&](int64_t b, int64_t t) { return start[b] + (local ? t : 0); }),
                  "q", 4, limits, hq.dtype);
  }
  if (append) {  // in place, as flash-attn does: the caller's caches hold the new keys afterwards
    const HostArray hk = qkvInput(kNew, "k", 4, limits), hv = qkvInput(v, "v", 4, limits);
    if (hk.shape[0] != batch || hk.shape[2] != hkv || hk.shape[3] != d || hv.shape[0] != batch ||
        hv.shape[1] != hk.shape[1] || hv.shape[2] != hkv || hv.shape[3] != dv)
      throw py::value_error("'k'/'v' must have shape (batch, seqlen_new, kv heads, headdim) matching the caches");
    const py::object kObj = np.attr("asarray")(kNew), vObj = np.attr("asarray")(v);
    for (int64_t b = 0; b < batch; ++b) {
      if (lens[b] + hk.shape[1] > capacity)
        throw py::value_error("appending " + std::to_string(hk.shape[1]) + " keys to sequence " + std::to_string(b) +
                              " of length " + std::to_string(lens[b]) + " overflows the cache ('k_cache')");
      for (int64_t j = 0; j < hk.shape[1]; ++j) {
        const py::tuple at = slot(b, lens[b] + j);
        kc[at] = kObj[py::make_tuple(b, j)];
        vc[at] = vObj[py::make_tuple(b, j)];
      }
      lens[b] += hk.shape[1];
    }
  }
  // cache_leftpad: sequence b's keys start at cache position leftpad[b]; masks, ALiBi and the
  // bottom-right alignment count keys from there (flash-attn's definition).
  std::vector<int64_t> first(static_cast<std::size_t>(batch), 0);
  if (!cacheLeftpad.is_none()) {
    if (paged) throw py::value_error("'cache_leftpad' cannot be combined with 'block_table' (nor can it in flash-attn)");
    const HostArray pad = intInput(cacheLeftpad, "cache_leftpad", limits, 0, capacity);
    if (pad.shape != Shape{batch}) throw py::value_error("'cache_leftpad' must have shape (" + std::to_string(batch) + ",)");
    for (int64_t b = 0; b < batch; ++b) {
      first[b] = static_cast<const int32_t*>(pad.data())[b];
      if (first[b] > lens[b])
        throw py::value_error("'cache_leftpad' " + std::to_string(first[b]) + " of sequence " + std::to_string(b) +
                              " is past its " + std::to_string(lens[b]) + " keys");
    }
  }
  const bool padded = std::any_of(first.begin(), first.end(), [](int64_t f) { return f > 0; });
  std::pair<HostResult, HostResult> result = padded
      ? attendEachSequence(hq, kc, vc, blocks, lens, first, args, kvAs, limits)
      : attendCache(hq, kc, vc, blocks, lens, paged, args, kvAs, limits);
  if (!returnLse) return toNumpy(result.first);
  return py::make_tuple(toNumpy(result.first), toNumpy(result.second));
}

}  // namespace

void bindFlashAttn(py::module_& m) {
  m.def("flash_attn_func", &flashAttnFunc, py::arg("q"), py::arg("k"), py::arg("v"), py::arg("dropout_p") = 0.0,
        py::arg("softmax_scale") = py::none(), py::arg("causal") = false,
        py::arg("window_size") = py::make_tuple(-1, -1), py::arg("softcap") = 0.0,
        py::arg("alibi_slopes") = py::none(), py::arg("deterministic") = false,
        py::arg("return_attn_probs") = false, py::kw_only(), py::arg("sinks") = py::none(),
        py::arg("kv_dtype") = py::none(),
        "flash-attn's flash_attn_func: q (B, Lq, H, D), k and v (B, Lk, Hkv, D|Dv) -> (B, Lq, H, Dv). Causal "
        "and windows align to the bottom-right corner; window_size=(left, right), -1 unbounded; softcap 0 is off; "
        "alibi_slopes (H,) or (B, H); sinks (H,). return_attn_probs returns (out, softmax_lse (B, H, Lq), None). kv_dtype 'bf16', 'q8_0' or "
        "'q4_0' stores k and v on the device in that format (vkattn.quantize's rounding).");
  m.def("flash_attn_varlen_func", &flashAttnVarlenFunc, py::arg("q"), py::arg("k"), py::arg("v"),
        py::arg("cu_seqlens_q"), py::arg("cu_seqlens_k"), py::arg("max_seqlen_q"), py::arg("max_seqlen_k"),
        py::arg("dropout_p") = 0.0, py::arg("softmax_scale") = py::none(), py::arg("causal") = false,
        py::arg("window_size") = py::make_tuple(-1, -1), py::arg("softcap") = 0.0,
        py::arg("alibi_slopes") = py::none(), py::arg("deterministic") = false,
        py::arg("return_attn_probs") = false, py::kw_only(), py::arg("sinks") = py::none(),
        py::arg("kv_dtype") = py::none(),
        "flash-attn's flash_attn_varlen_func on packed sequences: q (total_q, H, D), k and v (total_k, Hkv, "
        "D|Dv), cu_seqlens_q/k (B + 1,) int32 offsets. Every mask applies per sequence. return_attn_probs "
        "returns (out, softmax_lse (H, total_q), None). kv_dtype as flash_attn_func's.");
  m.def("flash_attn_with_kvcache", &flashAttnWithKvcache, py::arg("q"), py::arg("k_cache"), py::arg("v_cache"),
        py::arg("k") = py::none(), py::arg("v") = py::none(), py::arg("rotary_cos") = py::none(),
        py::arg("rotary_sin") = py::none(), py::arg("cache_seqlens") = py::none(),
        py::arg("cache_batch_idx") = py::none(), py::arg("cache_leftpad") = py::none(),
        py::arg("block_table") = py::none(), py::arg("softmax_scale") = py::none(), py::arg("causal") = false,
        py::arg("window_size") = py::make_tuple(-1, -1), py::arg("rotary_interleaved") = true,
        py::arg("softcap") = 0.0, py::arg("alibi_slopes") = py::none(), py::arg("num_splits") = 0,
        py::arg("return_softmax_lse") = false, py::kw_only(), py::arg("sinks") = py::none(),
        py::arg("kv_dtype") = py::none(),
        "flash-attn's flash_attn_with_kvcache: q (B, Lq, H, D) against a dense cache (B_c, L_max, Hkv, D) "
        "(rows chosen by cache_batch_idx) or a paged one (num_blocks, block_size, Hkv, D) with block_table "
        "(B, max_blocks) int32; cache_seqlens (int or (B,) int32) keys each. New k/v (B, L_new, Hkv, D) are "
        "appended to the caches in place at cache_seqlens before attending, turned first by rotary_cos/sin "
        "(seqlen_ro, rotary_dim / 2) when given (q too: at cache_seqlens + t when causal or windowed, else at "
        "cache_seqlens; rotary_interleaved pairs (2i, 2i+1), else (i, i + rotary_dim/2)). cache_leftpad (B,) "
        "int32: where each sequence's keys start in the cache. kv_dtype 'bf16', 'q8_0' or 'q4_0' stores the "
        "caches on the device in that format for the call (the NumPy caches stay float).");
}

}  // namespace vkattn::python
