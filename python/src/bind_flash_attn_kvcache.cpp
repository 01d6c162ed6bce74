// flash-attn's flash_attn_with_kvcache on NumPy or vkattn.Tensor caches. New k/v are appended in
// place at cache_seqlens before attending: into the caller's NumPy arrays, or on the device for
// vkattn.Tensor caches (only q and the new rows are uploaded; the cache never leaves the device).
// The whole batch is one vkattn::attention call on the caches as they are: dense rows, the rows of
// cache_batch_idx read as pages of the cache's length, or the paged cache with its block table.
// cache_leftpad records one call per sequence into one submission.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "arrays.hpp"
#include "bindings.hpp"
#include "flash_attn_args.hpp"
#include "session.hpp"
#include "storage_format_args.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/attention.hpp"

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

// Where the caches hold each sequence: blocks[b] are its cache rows (dense: one) or pages (paged),
// each `slots` keys long.
struct CacheLayout {
  bool paged = false;
  std::vector<std::vector<int64_t>> blocks;
  int64_t slots = 0;

  // The cache slot (row or block times slots, plus offset) of sequence b's key p.
  int64_t slot(int64_t b, int64_t p) const {
    const auto& own = blocks[static_cast<std::size_t>(b)];
    return paged ? own[static_cast<std::size_t>(p / slots)] * slots + p % slots : own[0] * slots + p;
  }
};

// The copies that put new rows [B, Lnew, Hkv, D] into their slots, D * Hkv elements each.
std::vector<VkBufferCopy> appendRegions(const CacheLayout& layout, const std::vector<int64_t>& lens, int64_t newRows,
                                        int64_t rowElems, DType dtype) {
  const std::size_t rowBytes = storageBytes(dtype, rowElems);  // whole blocks: D is a multiple of 32 for them
  std::vector<VkBufferCopy> regions;
  for (std::size_t b = 0; b < lens.size(); ++b)
    for (int64_t j = 0; j < newRows; ++j)
      regions.push_back({(b * static_cast<std::size_t>(newRows) + static_cast<std::size_t>(j)) * rowBytes,
                         static_cast<std::size_t>(layout.slot(static_cast<int64_t>(b), lens[b] + j)) * rowBytes,
                         rowBytes});
  return regions;
}

// Writes new rows into a vkattn.Tensor cache on the device.
void appendOnDevice(Context& ctx, const ArrayInput& rows, const CacheArg& cache,
                    const std::vector<VkBufferCopy>& regions) {
  const DeviceInput source = upload(ctx, rows, cache.dtype);
  const Tensor& target = cache.device.resident->tensor(cache.device.name);
  const std::size_t base = storageBytes(cache.dtype, source.view().offset);
  std::vector<VkBufferCopy> shifted = regions;
  for (VkBufferCopy& r : shifted) r.srcOffset += base;
  copyRegions(ctx.device(), *source.view().buffer, target.buffer(), shifted);
}

// A cache row's keys [start, start + count) as a [count, Hkv, D] view of the [N, S, Hkv, D] cache.
TensorView cacheRows(const TensorView& cache, int64_t row, int64_t start, int64_t count) {
  const TensorView part = cache.sliced(0, row, 1).sliced(1, start, count);
  TensorView v = part;
  v.shape = {count, cache.dim(2), cache.dim(3)};
  v.strides = {part.strides[1], part.strides[2], part.strides[3]};
  return v;
}

using CacheResult = std::pair<Result, Result>;  // out (B, Lq, H, Dv) and lse (B, H, Lq)

// The whole batch in one call on the caches as they are ([N, S, Hkv, D] views); each sequence's
// length as keyLengths, its causal diagonal and windows ending at its own last key.
void attendAll(Context& ctx, const DeviceLogitArgs& logits, const TensorView& q, const TensorView& k,
               const TensorView& v, const CacheLayout& layout, const std::vector<int64_t>& lens, const Tensor& out,
               const Tensor& lse) {
  const int64_t batch = q.dim(0);
  const std::vector<int> bhld = {0, 2, 1, 3};
  const std::vector<int32_t> lengths(lens.begin(), lens.end());
  const Tensor tLens = Tensor::fromHostInt(ctx.device(), {batch}, lengths);
  AttentionOptions o = logits.options(std::nullopt);
  o.alignment = MaskAlignment::BottomRightOfKeyLengths;
  o.keyLengths = tLens.view();
  o.lse = lse.view();
  TensorView k4 = k.permuted(bhld), v4 = v.permuted(bhld);
  std::vector<int32_t> table;
  bool inOrder = !layout.paged;  // dense rows 0 .. B-1: no table
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t block : layout.blocks[static_cast<std::size_t>(b)]) {
      table.push_back(static_cast<int32_t>(block));
      inOrder = inOrder && block == b;
    }
  std::optional<Tensor> tTable;
  if (inOrder) {
    k4 = k4.sliced(0, 0, batch);
    v4 = v4.sliced(0, 0, batch);
  } else {  // pages; dense rows of cache_batch_idx are pages as long as the cache
    const auto perSequence = static_cast<int64_t>(layout.blocks.front().size());
    tTable = Tensor::fromHostInt(ctx.device(), {batch, perSequence}, table);
    o.blockTable = tTable->view();
  }
  attention(ctx, q.permuted(bhld), k4, v4, out.view().permuted(bhld), o);
}

// Dense caches with left padding: sequence b's keys are [first[b], lens[b]) of its cache row, one
// call each in one submission. A sequence with no key reads one key under key length 0 (zeros,
// lse -inf or its sink).
void attendEachSequence(Context& ctx, const DeviceLogitArgs& logits, const TensorView& q, const TensorView& k,
                        const TensorView& v, const CacheLayout& layout, const std::vector<int64_t>& lens,
                        const std::vector<int64_t>& first, const Tensor& out, const Tensor& lse) {
  const int64_t batch = q.dim(0), lq = q.dim(1), h = q.dim(2), d = q.dim(3), dv = v.dim(3);
  const int32_t none = 0;
  const Tensor noKeys = Tensor::fromHostInt(ctx.device(), {1}, {&none, 1});
  std::vector<Tensor> lses;  // [1, H, Lq] each: an lse view must start its buffer
  Batch work(ctx);
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t n = lens[b] - first[b], row = layout.blocks[static_cast<std::size_t>(b)][0];
    const int64_t start = n > 0 ? first[b] : 0, count = std::max<int64_t>(n, 1);
    AttentionOptions o = logits.options(b);
    o.lse = lses.emplace_back(ctx.tensor({1, h, lq})).view();
    if (n == 0) o.keyLengths = noKeys.view();
    attention(ctx, oneSequence(q.sliced(0, b, 1).reshaped({lq, h, d})), oneSequence(cacheRows(k, row, start, count)),
              oneSequence(cacheRows(v, row, start, count)),
              oneSequence(out.view().sliced(0, b, 1).reshaped({lq, h, dv})), o);
  }
  work.submit();
  const std::size_t bytes = static_cast<std::size_t>(h * lq) * sizeof(float);
  for (int64_t b = 0; b < batch; ++b) {
    const VkBufferCopy region{0, static_cast<std::size_t>(b) * bytes, bytes};
    copyRegions(ctx.device(), lses[static_cast<std::size_t>(b)].buffer(), lse.buffer(), {&region, 1});
  }
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

// What a call reads of a NumPy cache: the batch's dense rows in batch order, or the whole paged cache.
py::object hostRows(const CacheArg& cache, const CacheLayout& layout) {
  if (layout.paged) return cache.host;
  std::vector<int64_t> rows, ordered(layout.blocks.size());
  for (const auto& own : layout.blocks) rows.push_back(own[0]);
  std::iota(ordered.begin(), ordered.end(), 0);
  if (rows == ordered) return cache.host[py::slice(0, static_cast<py::ssize_t>(rows.size()), 1)];  // a view: no copy
  return cache.host[py::array(py::cast(rows))];
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
  CacheLayout layout{!blockTable.is_none(), std::vector<std::vector<int64_t>>(static_cast<std::size_t>(batch)),
                     kc.shape[1]};
  int64_t capacity = kc.shape[1];
  if (layout.paged) {
    const ArrayInput table = intInput(blockTable, "block_table", limits, 0, kc.shape[0] - 1);
    if (table.shape.size() != 2 || table.shape[0] != batch)
      throw py::value_error("'block_table' must have shape (" + std::to_string(batch) + ", max_blocks)");
    const auto* t = static_cast<const int32_t*>(table.data());
    for (int64_t b = 0; b < batch; ++b) layout.blocks[b].assign(t + b * table.shape[1], t + (b + 1) * table.shape[1]);
    capacity = table.shape[1] * kc.shape[1];
  } else {
    for (int64_t b = 0; b < batch; ++b) layout.blocks[b] = {b};
    if (!cacheBatchIdx.is_none()) {
      const ArrayInput idx = intInput(cacheBatchIdx, "cache_batch_idx", limits, 0, kc.shape[0] - 1);
      if (idx.shape != Shape{batch})
        throw py::value_error("'cache_batch_idx' must have shape (" + std::to_string(batch) + ",)");
      for (int64_t b = 0; b < batch; ++b) layout.blocks[b] = {static_cast<const int32_t*>(idx.data())[b]};
    } else if (kc.shape[0] < batch) {
      throw py::value_error("'k_cache' has fewer rows than q's batch");
    }
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
    const RotaryTables tables = rotaryTables(rotaryCos, rotarySin, d);
    const std::vector<int64_t> start = lens;
    const bool local = causal || args.windowLeft || args.windowRight;
    kNew = rotated(hostValue(k), "k", tables, rotaryInterleaved, [&](int64_t b, int64_t t) { return start[b] + t; });
    hq = qkvInput(rotated(hostValue(q), "q", tables, rotaryInterleaved,
                          [&](int64_t b, int64_t t) { return start[b] + (local ? t : 0); }),
                  "q", 4, limits, hq.dtype);
  }
  // In place, as flash-attn does: the caller's caches hold the new keys afterwards.
  std::optional<ArrayInput> newK, newV;
  std::vector<VkBufferCopy> kRegions, vRegions;
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
    if (resident) {
      // Rows in another dtype than the cache's are converted on the host (they are few).
      if (newK->resident && newK->dtype != kc.dtype) newK = qkvInput(hostValue(kNew), "k", 4, limits);
      if (newV->resident && newV->dtype != vc.dtype) newV = qkvInput(hostValue(v), "v", 4, limits);
      kRegions = appendRegions(layout, lens, added, hkv * d, kc.dtype);
      vRegions = appendRegions(layout, lens, added, hkv * dv, vc.dtype);
    } else {
      py::module_ np = py::module_::import("numpy");
      const py::object kObj = np.attr("asarray")(hostValue(kNew)), vObj = np.attr("asarray")(hostValue(v));
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t j = 0; j < added; ++j) {
          const int64_t slot = layout.slot(b, lens[b] + j);
          const py::tuple at = py::make_tuple(slot / layout.slots, slot % layout.slots);
          kc.host[at] = kObj[py::make_tuple(b, j)];
          vc.host[at] = vObj[py::make_tuple(b, j)];
        }
    }
    for (int64_t& len : lens) len += added;
  }
  // cache_leftpad: sequence b's keys start at cache position leftpad[b]; masks, ALiBi and the
  // bottom-right alignment count keys from there (flash-attn's definition).
  std::vector<int64_t> first(static_cast<std::size_t>(batch), 0);
  if (!cacheLeftpad.is_none()) {
    if (layout.paged)
      throw py::value_error("'cache_leftpad' cannot be combined with 'block_table' (nor can it in flash-attn)");
    const ArrayInput pad = intInput(cacheLeftpad, "cache_leftpad", limits, 0, capacity);
    if (pad.shape != Shape{batch})
      throw py::value_error("'cache_leftpad' must have shape (" + std::to_string(batch) + ",)");
    for (int64_t b = 0; b < batch; ++b) {
      first[b] = static_cast<const int32_t*>(pad.data())[b];
      if (first[b] > lens[b])
        throw py::value_error("'cache_leftpad' " + std::to_string(first[b]) + " of sequence " + std::to_string(b) +
                              " is past its " + std::to_string(lens[b]) + " keys");
    }
  }
  const bool padded = std::any_of(first.begin(), first.end(), [](int64_t f) { return f > 0; });
  std::optional<ArrayInput> hostK, hostV;  // NumPy caches: the part this call reads, uploaded for it
  if (!resident) {
    hostK = floatInput(hostRows(kc, layout), "k_cache", limits, hq.dtype);
    hostV = floatInput(hostRows(vc, layout), "v_cache", limits, hq.dtype);
    if (!layout.paged)  // the rows read are now 0 .. B-1
      for (int64_t b = 0; b < batch; ++b) layout.blocks[b] = {b};
  }
  auto [out, lse] = onDevice([&](Context& ctx) {
    if (!kRegions.empty()) {
      appendOnDevice(ctx, *newK, kc, kRegions);
      appendOnDevice(ctx, *newV, vc, vRegions);
    }
    const DeviceLogitArgs logits(ctx, args);
    const DeviceInput tq = upload(ctx, hq);
    const DeviceInput tk = upload(ctx, resident ? kc.device : *hostK, kvAs),
                      tv = upload(ctx, resident ? vc.device : *hostV, kvAs);
    Tensor tout = ctx.tensor({batch, hq.shape[1], h, dv}, hq.dtype), tlse = ctx.tensor({batch, h, hq.shape[1]});
    if (padded)
      attendEachSequence(ctx, logits, tq, tk, tv, layout, lens, first, tout, tlse);
    else
      attendAll(ctx, logits, tq, tk, tv, layout, lens, tout, tlse);
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
