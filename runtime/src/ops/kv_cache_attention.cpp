#include "vkattn/ops/kv_cache_attention.hpp"

#include <algorithm>
#include <string>

#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn {

int64_t kvCacheSlot(const KvCacheLayout& layout, int64_t b, int64_t position, int64_t slots) {
  if (!layout.blockTable.empty())
    return layout.blockTable[static_cast<std::size_t>(b * layout.maxBlocks + position / slots)] * slots +
           position % slots;
  return (layout.rows.empty() ? b : layout.rows[static_cast<std::size_t>(b)]) * slots + position;
}

namespace {

std::string str(int64_t value) {
  return std::to_string(value);
}

// A checked layout, `slots` keys per cache row (dense) or block (paged).
struct Placement {
  KvCacheLayout layout;
  bool paged = false;
  int64_t slots = 0, capacity = 0;

  int64_t slot(int64_t b, int64_t p) const { return kvCacheSlot(layout, b, p, slots); }
  // Dense: sequence b's cache row.
  int64_t row(int64_t b) const { return layout.rows.empty() ? b : layout.rows[static_cast<std::size_t>(b)]; }
};

Placement place(const KvCacheLayout& layout, int64_t batch, int64_t cacheRows, int64_t slots) {
  Placement p{layout, !layout.blockTable.empty(), slots, slots};
  const auto inCache = [&](const std::string& name, int64_t value, int64_t b) {
    if (value < 0 || value >= cacheRows)
      throw InvalidArgument(name, str(value) + " (sequence " + str(b) + ") is outside the cache's " + str(cacheRows) +
                                      (p.paged ? " blocks" : " rows"));
  };
  if (p.paged) {
    if (!layout.rows.empty()) throw InvalidArgument("rows", "cannot be combined with a block table");
    if (layout.maxBlocks < 1 || static_cast<int64_t>(layout.blockTable.size()) != batch * layout.maxBlocks)
      throw InvalidArgument("blockTable", "must hold batch x maxBlocks = " + str(batch) + " x " +
                                              str(layout.maxBlocks) + " block numbers, got " +
                                              str(static_cast<int64_t>(layout.blockTable.size())));
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < layout.maxBlocks; ++i)
        inCache("blockTable", layout.blockTable[static_cast<std::size_t>(b * layout.maxBlocks + i)], b);
    p.capacity = layout.maxBlocks * slots;
    return p;
  }
  if (!layout.rows.empty() && static_cast<int64_t>(layout.rows.size()) != batch)
    throw InvalidArgument("rows", "must name a cache row for each of the " + str(batch) + " sequences, got " +
                                      str(static_cast<int64_t>(layout.rows.size())));
  if (layout.rows.empty() && cacheRows < batch)
    throw InvalidArgument("kCache", "has " + str(cacheRows) + " rows, fewer than q's batch of " + str(batch));
  for (int64_t b = 0; b < batch; ++b) inCache("rows", p.row(b), b);
  return p;
}

// Copies new rows [B, Lnew, Hkv, D] into their cache slots, one row of Hkv * D elements each.
void append(Context& ctx, const TensorView& rows, const TensorView& cache, const Placement& placement,
            const std::vector<int64_t>& lengths, const char* rowsName, const char* cacheName) {
  const int64_t batch = rows.dim(0), added = rows.dim(1), rowElems = rows.dim(2) * rows.dim(3);
  if (!rows.contiguous() || !cache.contiguous())
    throw InvalidArgument(!rows.contiguous() ? rowsName : cacheName, "must be contiguous to append new rows");
  if (rowElems % blockElements(cache.dtype) != 0)
    throw InvalidArgument(cacheName,
                          "rows of " + str(rowElems) + " elements are not whole " + toString(cache.dtype) + " blocks");
  const std::size_t rowBytes = storageBytes(cache.dtype, rowElems);
  const std::size_t from = storageBytes(rows.dtype, rows.offset), to = storageBytes(cache.dtype, cache.offset);
  std::vector<VkBufferCopy> regions;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t j = 0; j < added; ++j)
      regions.push_back(
          {from + static_cast<std::size_t>(b * added + j) * rowBytes,
           to + static_cast<std::size_t>(placement.slot(b, lengths[static_cast<std::size_t>(b)] + j)) * rowBytes,
           rowBytes});
  copyRegions(ctx.device(), *rows.buffer, *cache.buffer, regions);
}

// A cache row's keys [start, start + count) as the [1, Hkv, count, D] view attention takes.
TensorView sequenceKeys(const TensorView& cache, int64_t row, int64_t start, int64_t count) {
  const TensorView part = cache.sliced(0, row, 1).sliced(1, start, count);
  TensorView v = part;
  v.shape = {1, cache.dim(2), count, cache.dim(3)};
  v.strides = {count * part.strides[1], part.strides[2], part.strides[1], part.strides[3]};
  return v;
}

// Sequence b's rows [Lq, H, D] of a [B, Lq, H, D] view as [1, H, Lq, D].
TensorView sequenceRows(const TensorView& blhd, int64_t b) {
  return blhd.sliced(0, b, 1).permuted({0, 2, 1, 3});
}

// Whether rows name 0 .. B-1 (or nothing): the first B cache rows, read without a table.
bool inOrder(const std::vector<int32_t>& rows) {
  for (std::size_t b = 0; b < rows.size(); ++b)
    if (rows[b] != static_cast<int32_t>(b)) return false;
  return true;
}

// The whole batch in one call on the caches as they are; each sequence's length as its key
// length, its masks ending at its own last key.
void attendAll(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v, const TensorView& out,
               const Placement& placement, const std::vector<int64_t>& lengths, const AttentionOptions& base) {
  const int64_t batch = q.dim(0);
  const std::vector<int> bhld = {0, 2, 1, 3};
  const std::vector<int32_t> keys(lengths.begin(), lengths.end());
  const Tensor tLengths = Tensor::fromHostInt(ctx.device(), {batch}, keys);
  AttentionOptions o = base;
  o.alignment = MaskAlignment::BottomRightOfKeyLengths;
  o.keyLengths = tLengths.view();
  TensorView k4 = k.permuted(bhld), v4 = v.permuted(bhld);
  std::optional<Tensor> tTable;
  if (placement.paged) {
    tTable = Tensor::fromHostInt(ctx.device(), {batch, placement.layout.maxBlocks}, placement.layout.blockTable);
    o.blockTable = tTable->view();
  } else if (!inOrder(placement.layout.rows)) {  // dense rows chosen by `rows`: pages as long as the cache
    tTable = Tensor::fromHostInt(ctx.device(), {batch, 1}, placement.layout.rows);
    o.blockTable = tTable->view();
  } else {  // rows 0 .. B-1: no table
    k4 = k4.sliced(0, 0, batch);
    v4 = v4.sliced(0, 0, batch);
  }
  attention(ctx, q.permuted(bhld), k4, v4, out.permuted(bhld), o);
}

// Dense caches with left padding: sequence b's keys are [first[b], lengths[b]) of its cache row,
// one call each in one submission. A sequence with no key reads one key under key length 0
// (zeros, lse -inf or its sink).
void attendEachSequence(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                        const TensorView& out, const Placement& placement, const std::vector<int64_t>& lengths,
                        const std::vector<int64_t>& first, const AttentionOptions& base) {
  const int64_t batch = q.dim(0), lq = q.dim(1), h = q.dim(2);
  const int32_t none = 0;
  const Tensor noKeys = Tensor::fromHostInt(ctx.device(), {1}, {&none, 1});
  std::vector<Tensor> lses;  // [1, H, Lq] each, copied into the caller's lse after
  // [B, H] ALiBi slopes: each sequence's row as a tensor of its own (slopes start their buffer).
  std::vector<Tensor> slopes;
  if (base.alibiSlopes && base.alibiSlopes->rank() == 2) {
    if (!base.alibiSlopes->contiguous() || base.alibiSlopes->dtype != DType::F32)
      throw InvalidArgument("alibiSlopes", "must be contiguous f32");
    const std::size_t bytes = static_cast<std::size_t>(h) * sizeof(float);
    for (int64_t b = 0; b < batch; ++b) {
      const VkBufferCopy region{
          (static_cast<std::size_t>(base.alibiSlopes->offset) + static_cast<std::size_t>(b * h)) * sizeof(float), 0,
          bytes};
      copyRegions(ctx.device(), *base.alibiSlopes->buffer, slopes.emplace_back(ctx.tensor({h})).buffer(), {&region, 1});
    }
  }
  Batch work(ctx);
  for (int64_t b = 0; b < batch; ++b) {
    const auto at = static_cast<std::size_t>(b);
    const int64_t n = lengths[at] - first[at], row = placement.row(b);
    const int64_t start = n > 0 ? first[at] : 0, count = std::max<int64_t>(n, 1);
    AttentionOptions o = base;
    o.alignment = MaskAlignment::BottomRight;
    if (!slopes.empty()) o.alibiSlopes = slopes[at].view();
    if (base.lse) o.lse = lses.emplace_back(ctx.tensor({1, h, lq})).view();
    if (n == 0) o.keyLengths = noKeys.view();
    attention(ctx, sequenceRows(q, b), sequenceKeys(k, row, start, count), sequenceKeys(v, row, start, count),
              sequenceRows(out, b), o);
  }
  work.submit();
  if (!base.lse) return;
  const std::size_t bytes = static_cast<std::size_t>(h * lq) * sizeof(float);
  const std::size_t origin = static_cast<std::size_t>(base.lse->offset) * sizeof(float);
  for (int64_t b = 0; b < batch; ++b) {
    const VkBufferCopy region{0, origin + static_cast<std::size_t>(b) * bytes, bytes};
    copyRegions(ctx.device(), lses[static_cast<std::size_t>(b)].buffer(), *base.lse->buffer, {&region, 1});
  }
}

void checkShapes(const TensorView& q, const TensorView& k, const TensorView& v, const TensorView& out,
                 const KvCacheAttentionOptions& o) {
  const auto rank4 = [](const TensorView& t, const char* name, const char* dims) {
    if (t.rank() != 4)
      throw InvalidArgument(name, std::string("must have rank 4 ") + dims + ", got " + toString(t.shape));
  };
  rank4(q, "q", "[B, Lq, Hq, D]");
  rank4(k, "kCache", "[N, S, Hkv, D]");
  rank4(v, "vCache", "[N, S, Hkv, Dv]");
  rank4(out, "out", "[B, Lq, Hq, Dv]");
  if (v.dim(0) != k.dim(0) || v.dim(1) != k.dim(1) || v.dim(2) != k.dim(2))
    throw InvalidArgument("vCache", "shape " + toString(v.shape) + " does not match kCache's " + toString(k.shape) +
                                        " in its first three dims");
  if (v.dtype != k.dtype)
    throw InvalidArgument("vCache", std::string("is ") + toString(v.dtype) + ", kCache " + toString(k.dtype));
  if (k.dim(3) != q.dim(3))
    throw InvalidArgument("kCache", "head dim " + str(k.dim(3)) + " differs from q's " + str(q.dim(3)));
  if (q.dim(2) % k.dim(2) != 0)
    throw InvalidArgument("kCache", str(k.dim(2)) + " heads do not divide q's " + str(q.dim(2)));
  if (out.shape != Shape{q.dim(0), q.dim(1), q.dim(2), v.dim(3)})
    throw InvalidArgument(
        "out", "must have shape [B, Lq, Hq, Dv] = " + toString(Shape{q.dim(0), q.dim(1), q.dim(2), v.dim(3)}) +
                   ", got " + toString(out.shape));
  const AttentionOptions& a = o.attention;
  if (a.keyLengths || a.blockTable || a.keepMask || a.bias || a.cuSeqlensQ || a.cuSeqlensK)
    throw InvalidArgument("attention",
                          "keyLengths and blockTable come from the caches' lengths and layout; leave "
                          "them, keepMask, bias and cuSeqlens unset");
  if (o.newK.has_value() != o.newV.has_value()) throw InvalidArgument("newK", "and newV must be given together");
  if (o.newK) {
    const Shape wantK{q.dim(0), o.newK->dim(1), k.dim(2), k.dim(3)},
        wantV{q.dim(0), o.newK->dim(1), k.dim(2), v.dim(3)};
    if (o.newK->rank() != 4 || o.newK->shape != wantK)
      throw InvalidArgument(
          "newK", "must have shape [B, Lnew, Hkv, D] = " + toString(wantK) + ", got " + toString(o.newK->shape));
    if (o.newV->shape != wantV)
      throw InvalidArgument("newV", "must have shape " + toString(wantV) + ", got " + toString(o.newV->shape));
    if (o.newK->dtype != k.dtype || o.newV->dtype != k.dtype)
      throw InvalidArgument(o.newK->dtype != k.dtype ? "newK" : "newV",
                            std::string("must be stored as the caches are (") + toString(k.dtype) + ")");
  }
}

}  // namespace

void kvCacheAttention(Context& ctx, const TensorView& q, const TensorView& kCache, const TensorView& vCache,
                      const TensorView& out, const KvCacheAttentionOptions& o) {
  checkShapes(q, kCache, vCache, out, o);
  const int64_t batch = q.dim(0);
  const Placement placement = place(o.layout, batch, kCache.dim(0), kCache.dim(1));
  const int64_t added = o.newK ? o.newK->dim(1) : 0;

  std::vector<int64_t> lengths = o.lengths;
  if (lengths.empty()) lengths.assign(static_cast<std::size_t>(batch), placement.capacity);
  if (static_cast<int64_t>(lengths.size()) != batch)
    throw InvalidArgument("lengths", "must give the length of each of the " + str(batch) + " sequences");
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t n = lengths[static_cast<std::size_t>(b)];
    if (n < 0 || n > placement.capacity)
      throw InvalidArgument(
          "lengths", str(n) + " keys for sequence " + str(b) + ", the cache holds 0 .. " + str(placement.capacity));
    if (n + added > placement.capacity)
      throw InvalidArgument("newK", "appending " + str(added) + " keys to sequence " + str(b) + " of length " + str(n) +
                                        " overflows its cache of " + str(placement.capacity));
  }
  std::vector<int64_t> first(static_cast<std::size_t>(batch), 0);
  if (!o.leftPad.empty()) {
    if (placement.paged) throw InvalidArgument("leftPad", "cannot be combined with a block table");
    if (static_cast<int64_t>(o.leftPad.size()) != batch)
      throw InvalidArgument("leftPad", "must give where each of the " + str(batch) + " sequences starts");
    first = o.leftPad;
    for (int64_t b = 0; b < batch; ++b) {
      const auto at = static_cast<std::size_t>(b);
      if (first[at] < 0 || first[at] > lengths[at] + added)
        throw InvalidArgument("leftPad", str(first[at]) + " of sequence " + str(b) + " is outside its " +
                                             str(lengths[at] + added) + " keys");
    }
  }

  if (o.newK) {
    append(ctx, *o.newK, kCache, placement, lengths, "newK", "kCache");
    append(ctx, *o.newV, vCache, placement, lengths, "newV", "vCache");
    for (int64_t& n : lengths) n += added;
  }
  if (std::any_of(first.begin(), first.end(), [](int64_t f) { return f > 0; }))
    attendEachSequence(ctx, q, kCache, vCache, out, placement, lengths, first, o.attention);
  else
    attendAll(ctx, q, kCache, vCache, out, placement, lengths, o.attention);
}

void rotateByTables(std::span<float> x, const Shape& blhd, const RotaryTables& t, bool interleaved,
                    const std::function<int64_t(int64_t b, int64_t l)>& position) {
  if (blhd.size() != 4) throw InvalidArgument("x", "must have rank 4 [B, L, H, D], got " + toString(blhd));
  const int64_t batch = blhd[0], len = blhd[1], heads = blhd[2], dim = blhd[3];
  if (static_cast<int64_t>(x.size()) != batch * len * heads * dim)
    throw InvalidArgument("x", "holds " + str(static_cast<int64_t>(x.size())) + " floats, not " + toString(blhd));
  if (t.half < 1 || 2 * t.half > dim)
    throw InvalidArgument("cos", "rotates " + str(2 * t.half) + " features; the head dim is " + str(dim));
  if (static_cast<int64_t>(t.cos.size()) != t.rows * t.half || t.sin.size() != t.cos.size())
    throw InvalidArgument(static_cast<int64_t>(t.cos.size()) != t.rows * t.half ? "cos" : "sin",
                          "must hold rows x half = " + str(t.rows) + " x " + str(t.half) + " values");
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t l = 0; l < len; ++l) {
      const int64_t p = position(b, l);
      if (p < 0 || p >= t.rows)
        throw InvalidArgument("cos", "has " + str(t.rows) + " rows; sequence " + str(b) + " needs position " + str(p));
      const float* c = t.cos.data() + p * t.half;
      const float* s = t.sin.data() + p * t.half;
      for (int64_t h = 0; h < heads; ++h) {
        float* row = x.data() + ((b * len + l) * heads + h) * dim;
        for (int64_t i = 0; i < t.half; ++i) {
          const int64_t x0 = interleaved ? 2 * i : i, x1 = interleaved ? 2 * i + 1 : i + t.half;
          const float u = row[x0], w = row[x1];
          row[x0] = u * c[i] - w * s[i];
          row[x1] = u * s[i] + w * c[i];
        }
      }
    }
}

}  // namespace vkattn
