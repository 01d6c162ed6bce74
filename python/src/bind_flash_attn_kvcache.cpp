// flash-attn's flash_attn_with_kvcache on NumPy or vkattn.Tensor caches, through
// vkattn::kvCacheAttention (vkattn/ops/kv_cache_attention.hpp), which holds the logic: this file
// converts arguments. New k/v are appended in place at cache_seqlens before attending: into the
// caller's NumPy arrays here (the part of them the call reads is then uploaded), or on the device
// by kvCacheAttention for vkattn.Tensor caches (only q and the new rows are uploaded; the cache
// never leaves the device).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "arrays.hpp"
#include "bindings.hpp"
#include "flash_attn_args.hpp"
#include "session.hpp"
#include "storage_format_args.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/ops/kv_cache_attention.hpp"

namespace vkattn::python {
namespace {

// A KV cache argument: a NumPy array (appended to with NumPy) or a vkattn.Tensor (on the device).
struct CacheArg {
  py::array host;
  ArrayInput device;  // .resident set for a vkattn.Tensor
  Shape shape;
  DType dtype = DType::F32;
  bool resident() const { return device.resident != nullptr; }
};

CacheArg cacheArg(const py::object& value, const std::string& name, bool writable, const SizeLimits& limits) {
  CacheArg c;
  if (isDeviceTensor(value)) {
    c.device = floatInput(value, name, limits, std::nullopt, Stored::FloatOrKvFormat);
    c.shape = c.device.shape;
    c.dtype = c.device.dtype;
  } else {
    if (!py::isinstance<py::array>(value))
      throw py::type_error("'" + name + "' must be a numpy array (updated in place) or a vkattn.Tensor");
    c.host = py::reinterpret_borrow<py::array>(value);
    if (c.host.dtype().kind() != 'f') throw py::type_error("'" + name + "' must be a float array");
    if (writable && !c.host.writeable())
      throw py::value_error("'" + name + "' is read-only; k/v would be appended to it");
    c.shape.assign(c.host.shape(), c.host.shape() + c.host.ndim());
  }
  if (c.shape.size() != 4)
    throw py::value_error("'" + name + "' must have rank 4 ((batch|blocks), seqlen|block_size, heads, headdim)");
  return c;
}

// flash-attn's rotary tables: cos and sin (seqlen_ro, rotary_dim / 2), as float32.
struct RotaryArrays {
  py::array_t<float, py::array::c_style | py::array::forcecast> cos, sin;
  RotaryTables tables() const {
    return {{cos.data(), static_cast<std::size_t>(cos.size())},
            {sin.data(), static_cast<std::size_t>(sin.size())},
            cos.shape(0),
            cos.shape(1)};
  }
};

RotaryArrays rotaryArrays(const py::object& cos, const py::object& sin, int64_t headDim) {
  if (cos.is_none() || sin.is_none()) throw py::value_error("'rotary_cos' and 'rotary_sin' must be given together");
  RotaryArrays t;
  t.cos = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(cos);
  t.sin = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(sin);
  if (!t.cos || !t.sin) throw py::type_error("'rotary_cos'/'rotary_sin' must be float arrays");
  if (t.cos.ndim() != 2 || t.cos.shape(1) < 1)
    throw py::value_error("'rotary_cos' must have shape (seqlen_ro, rotary_dim / 2)");
  if (t.sin.ndim() != 2 || t.sin.shape(0) != t.cos.shape(0) || t.sin.shape(1) != t.cos.shape(1))
    throw py::value_error("'rotary_sin' must have the shape of 'rotary_cos'");
  if (2 * t.cos.shape(1) > headDim)
    throw py::value_error("'rotary_cos' rotates " + std::to_string(2 * t.cos.shape(1)) +
                          " features, more than the head dim " + std::to_string(headDim));
  return t;
}

// x (B, L, H, D) turned by the tables (vkattn::rotateByTables), as a new float32 array.
py::array rotated(const py::object& x, const std::string& name, const RotaryArrays& t, bool interleaved,
                  const std::function<int64_t(int64_t, int64_t)>& position) {
  auto a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(x);
  if (!a || a.ndim() != 4) throw py::value_error("'" + name + "' must have rank 4 (batch, seqlen, heads, headdim)");
  py::array_t<float> out(std::vector<py::ssize_t>(a.shape(), a.shape() + 4));
  std::copy_n(a.data(), static_cast<std::size_t>(a.size()), out.mutable_data());
  try {
    rotateByTables({out.mutable_data(), static_cast<std::size_t>(out.size())}, Shape(a.shape(), a.shape() + 4),
                   t.tables(), interleaved, position);
  } catch (const InvalidArgument& e) {
    if (e.argument() == "cos") throw py::value_error("'rotary_cos' " + e.problem());
    throw;
  }
  return out;
}

using CacheResult = std::pair<Result, Result>;  // out (B, Lq, H, Dv) and lse (B, H, Lq)

// What a call reads of a NumPy cache: the batch's dense rows in batch order, or the whole paged cache.
py::object hostRows(const CacheArg& cache, const KvCacheLayout& layout, int64_t batch) {
  if (!layout.blockTable.empty() || layout.rows.empty())
    return layout.blockTable.empty() ? cache.host[py::slice(0, static_cast<py::ssize_t>(batch), 1)] : cache.host;
  return cache.host[py::array(py::cast(layout.rows))];
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
  const bool keep = isDeviceTensor(q);
  ArrayInput hq = qkvInput(q, "q", 4, limits);
  const int64_t batch = hq.shape[0], h = hq.shape[2];
  const bool append = !k.is_none() || !v.is_none();
  if (append && (k.is_none() || v.is_none())) throw py::value_error("'k' and 'v' must be given together");
  const CacheArg kc = cacheArg(kCache, "k_cache", append, limits), vc = cacheArg(vCache, "v_cache", append, limits);
  if (kc.resident() != vc.resident())
    throw py::type_error("'v_cache' must be a vkattn.Tensor when 'k_cache' is one, and a numpy array otherwise");
  const bool resident = kc.resident();
  const int64_t hkv = kc.shape[2], d = kc.shape[3], dv = vc.shape[3];
  if (kc.shape[0] != vc.shape[0] || kc.shape[1] != vc.shape[1] || vc.shape[2] != hkv)
    throw py::value_error("'v_cache' does not match 'k_cache' in its first three dims");
  if (d != hq.shape[3]) throw py::value_error("'k_cache' head dim differs from q's");
  if (h % hkv != 0) throw py::value_error("'k_cache' heads do not divide q's heads");

  // Which cache rows (dense) or blocks (paged) hold sequence b, and how many keys each can hold.
  KvCacheLayout layout;
  int64_t capacity = kc.shape[1];
  if (!blockTable.is_none()) {
    const ArrayInput table = intInput(blockTable, "block_table", limits, 0, kc.shape[0] - 1);
    if (table.shape.size() != 2 || table.shape[0] != batch)
      throw py::value_error("'block_table' must have shape (" + std::to_string(batch) + ", max_blocks)");
    const auto* t = static_cast<const int32_t*>(table.data());
    layout.blockTable.assign(t, t + batch * table.shape[1]);
    layout.maxBlocks = table.shape[1];
    capacity = table.shape[1] * kc.shape[1];
  } else if (!cacheBatchIdx.is_none()) {
    const ArrayInput idx = intInput(cacheBatchIdx, "cache_batch_idx", limits, 0, kc.shape[0] - 1);
    if (idx.shape != Shape{batch})
      throw py::value_error("'cache_batch_idx' must have shape (" + std::to_string(batch) + ",)");
    const auto* rows = static_cast<const int32_t*>(idx.data());
    layout.rows.assign(rows, rows + batch);
  } else if (kc.shape[0] < batch) {
    throw py::value_error("'k_cache' has fewer rows than q's batch");
  }
  std::vector<int64_t> lens(static_cast<std::size_t>(batch), capacity);
  if (!cacheSeqlens.is_none()) {
    if (py::isinstance<py::int_>(cacheSeqlens)) {
      std::fill(lens.begin(), lens.end(), intArgument(cacheSeqlens, "cache_seqlens", 0, capacity));
    } else {
      const ArrayInput s = intInput(cacheSeqlens, "cache_seqlens", limits, 0, capacity);
      if (s.shape != Shape{batch})
        throw py::value_error("'cache_seqlens' must have shape (" + std::to_string(batch) + ",)");
      for (int64_t b = 0; b < batch; ++b) lens[b] = static_cast<const int32_t*>(s.data())[b];
    }
  }
  const LogitArgs args = logitArgs(py::float_(0.0), scale, causal, window, softcap, alibi, sinks, batch, h, limits);
  const std::optional<DType> kvFormat = kvDtypeArgument(kvDtype, d, dv);
  DType kvAs = kvFormat.value_or(hq.dtype);
  if (resident) {  // the caches are stored as they are
    kvAs = kc.dtype;
    if (vc.dtype != kc.dtype)
      throw py::value_error("'v_cache' is stored as " + std::string(dtypeName(vc.dtype)) + ", 'k_cache' as " +
                            dtypeName(kc.dtype));
    if (kvFormat && *kvFormat != kc.dtype)
      throw py::value_error("'kv_dtype' " + std::string(toString(*kvFormat)) +
                            " differs from the vkattn.Tensor "
                            "caches' " +
                            dtypeName(kc.dtype) + "; make them with vkattn.asarray(..., dtype=kv_dtype)");
    if (kc.dtype != hq.dtype && !isKvStorageFormat(kc.dtype))
      throw py::value_error("'k_cache' is a " + std::string(dtypeName(kc.dtype)) + " vkattn.Tensor but q is " +
                            dtypeName(hq.dtype) + "; a cache holds q's dtype or a K/V format (bf16, q8_0, q4_0)");
  }
  py::object kNew = k;
  if (!rotaryCos.is_none() || !rotarySin.is_none()) {
    // As flash-attn: the new keys turn at their cache positions cache_seqlens + t; the queries at
    // cache_seqlens + t when causal or windowed, else all at cache_seqlens.
    if (!append) throw py::value_error("'rotary_cos'/'rotary_sin' apply only when new 'k' and 'v' are given");
    const RotaryArrays tables = rotaryArrays(rotaryCos, rotarySin, d);
    const std::vector<int64_t> start = lens;
    const bool local = causal || args.windowLeft || args.windowRight;
    kNew = rotated(hostValue(k), "k", tables, rotaryInterleaved, [&](int64_t b, int64_t t) { return start[b] + t; });
    hq = qkvInput(rotated(hostValue(q), "q", tables, rotaryInterleaved,
                          [&](int64_t b, int64_t t) { return start[b] + (local ? t : 0); }),
                  "q", 4, limits, hq.dtype);
  }
  // In place, as flash-attn does: the caller's caches hold the new keys afterwards.
  std::optional<ArrayInput> newK, newV;
  if (append) {
    newK = qkvInput(kNew, "k", 4, limits);
    newV = qkvInput(v, "v", 4, limits);
    const Shape &sk = newK->shape, &sv = newV->shape;
    if (sk[0] != batch || sk[2] != hkv || sk[3] != d || sv[0] != batch || sv[1] != sk[1] || sv[2] != hkv || sv[3] != dv)
      throw py::value_error("'k'/'v' must have shape (batch, seqlen_new, kv heads, headdim) matching the caches");
    const int64_t added = sk[1];
    for (int64_t b = 0; b < batch; ++b)
      if (lens[b] + added > capacity)
        throw py::value_error("appending " + std::to_string(added) + " keys to sequence " + std::to_string(b) +
                              " of length " + std::to_string(lens[b]) + " overflows the cache ('k_cache')");
    if (resident) {  // kvCacheAttention writes them on the device
      // Rows in another dtype than the cache's are converted on the host (they are few).
      if (newK->resident && newK->dtype != kc.dtype) newK = qkvInput(hostValue(kNew), "k", 4, limits);
      if (newV->resident && newV->dtype != vc.dtype) newV = qkvInput(hostValue(v), "v", 4, limits);
    } else {
      py::module_ np = py::module_::import("numpy");
      const py::object kObj = np.attr("asarray")(hostValue(kNew)), vObj = np.attr("asarray")(hostValue(v));
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t j = 0; j < added; ++j) {
          const int64_t slot = kvCacheSlot(layout, b, lens[b] + j, kc.shape[1]);
          const py::tuple at = py::make_tuple(slot / kc.shape[1], slot % kc.shape[1]);
          kc.host[at] = kObj[py::make_tuple(b, j)];
          vc.host[at] = vObj[py::make_tuple(b, j)];
        }
      for (int64_t& len : lens) len += added;
    }
  }
  // cache_leftpad: sequence b's keys start at cache position leftpad[b]; masks, ALiBi and the
  // bottom-right alignment count keys from there (flash-attn's definition).
  std::vector<int64_t> first;
  if (!cacheLeftpad.is_none()) {
    if (!layout.blockTable.empty())
      throw py::value_error("'cache_leftpad' cannot be combined with 'block_table' (nor can it in flash-attn)");
    const ArrayInput pad = intInput(cacheLeftpad, "cache_leftpad", limits, 0, capacity);
    if (pad.shape != Shape{batch})
      throw py::value_error("'cache_leftpad' must have shape (" + std::to_string(batch) + ",)");
    const int64_t added = resident && newK ? newK->shape[1] : 0;
    for (int64_t b = 0; b < batch; ++b) {
      first.push_back(static_cast<const int32_t*>(pad.data())[b]);
      if (first[b] > lens[b] + added)
        throw py::value_error("'cache_leftpad' " + std::to_string(first[b]) + " of sequence " + std::to_string(b) +
                              " is past its " + std::to_string(lens[b] + added) + " keys");
    }
  }
  std::optional<ArrayInput> hostK, hostV;  // NumPy caches: the part this call reads, uploaded for it
  if (!resident) {
    hostK = floatInput(hostRows(kc, layout, batch), "k_cache", limits, hq.dtype);
    hostV = floatInput(hostRows(vc, layout, batch), "v_cache", limits, hq.dtype);
    layout.rows.clear();  // the dense rows read are now 0 .. B-1
  }
  auto [out, lse] = onDevice([&](Context& ctx) {
    const DeviceLogitArgs logits(ctx, args);
    const DeviceInput tq = upload(ctx, hq);
    const DeviceInput tk = upload(ctx, resident ? kc.device : *hostK, kvAs),
                      tv = upload(ctx, resident ? vc.device : *hostV, kvAs);
    std::optional<DeviceInput> tkNew, tvNew;
    Tensor tout = ctx.tensor({batch, hq.shape[1], h, dv}, hq.dtype), tlse = ctx.tensor({batch, h, hq.shape[1]});
    KvCacheAttentionOptions o;
    o.attention = logits.options(std::nullopt);
    o.attention.lse = tlse.view();
    o.layout = layout;
    o.lengths = lens;
    o.leftPad = first;
    if (resident && newK) {
      tkNew = upload(ctx, *newK, kc.dtype);
      tvNew = upload(ctx, *newV, vc.dtype);
      o.newK = tkNew->view();
      o.newV = tvNew->view();
    }
    kvCacheAttention(ctx, tq.view(), tk.view(), tv.view(), tout.view(), o);
    return CacheResult{finish(std::move(tout), keep), finish(std::move(tlse), keep)};
  });
  if (!returnLse) return toPython(std::move(out));
  return py::make_tuple(toPython(std::move(out)), toPython(std::move(lse)));
}

}  // namespace

void bindFlashAttnKvcache(py::module_& m) {
  m.def("flash_attn_with_kvcache", &flashAttnWithKvcache, py::arg("q"), py::arg("k_cache"), py::arg("v_cache"),
        py::arg("k") = py::none(), py::arg("v") = py::none(), py::arg("rotary_cos") = py::none(),
        py::arg("rotary_sin") = py::none(), py::arg("cache_seqlens") = py::none(),
        py::arg("cache_batch_idx") = py::none(), py::arg("cache_leftpad") = py::none(),
        py::arg("block_table") = py::none(), py::arg("softmax_scale") = py::none(), py::arg("causal") = false,
        py::arg("window_size") = py::make_tuple(-1, -1), py::arg("rotary_interleaved") = true, py::arg("softcap") = 0.0,
        py::arg("alibi_slopes") = py::none(), py::arg("num_splits") = 0, py::arg("return_softmax_lse") = false,
        py::kw_only(), py::arg("sinks") = py::none(), py::arg("kv_dtype") = py::none(),
        "flash-attn's flash_attn_with_kvcache: q (B, Lq, H, D) against a dense cache (B_c, L_max, Hkv, D) "
        "(rows chosen by cache_batch_idx) or a paged one (num_blocks, block_size, Hkv, D) with block_table "
        "(B, max_blocks) int32; cache_seqlens (int or (B,) int32) keys each. New k/v (B, L_new, Hkv, D) are "
        "appended to the caches in place at cache_seqlens before attending, turned first by rotary_cos/sin "
        "(seqlen_ro, rotary_dim / 2) when given (q too: at cache_seqlens + t when causal or windowed, else at "
        "cache_seqlens; rotary_interleaved pairs (2i, 2i+1), else (i, i + rotary_dim/2)). cache_leftpad (B,) "
        "int32: where each sequence's keys start in the cache. kv_dtype 'bf16', 'q8_0' or 'q4_0' stores NumPy "
        "caches on the device in that format for the call (the NumPy caches stay float). vkattn.Tensor caches "
        "(vkattn.asarray, in q's dtype or a K/V format) stay on the device: new k/v are appended there, and only "
        "q and the new rows are uploaded.");
}

}  // namespace vkattn::python
