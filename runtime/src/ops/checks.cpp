#include "checks.hpp"

#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn::detail {

void requireTensor(const std::string& name, const TensorView& v) {
  if (!v.buffer) throw InvalidArgument(name, "no tensor given (view has no buffer)");
  if (v.shape.size() != v.strides.size()) throw InvalidArgument(name, "shape and strides differ in rank");
  for (int64_t d : v.shape)
    if (d <= 0) throw InvalidArgument(name, "empty tensor of shape " + toString(v.shape) + "; every dim must be >= 1");
  if (v.offset < 0) throw InvalidArgument(name, "negative offset");
  for (int64_t s : v.strides)
    if (s < 0) throw InvalidArgument(name, "negative strides are not supported");
  if (static_cast<int64_t>(storageBytes(v.dtype, v.offset + v.spanElements())) > static_cast<int64_t>(v.buffer->size()))
    throw InvalidArgument(name, "view of shape " + toString(v.shape) + " reaches past the end of its buffer");
}

void requireDtype(const std::string& name, const TensorView& v, std::initializer_list<DType> allowed) {
  for (DType d : allowed)
    if (v.dtype == d) return;
  std::string list;
  for (DType d : allowed) list += std::string(list.empty() ? "" : " or ") + toString(d);
  throw InvalidArgument(name, std::string("dtype ") + toString(v.dtype) + ", expected " + list);
}

void requireRank(const std::string& name, const TensorView& v, int64_t minRank, int64_t maxRank) {
  if (v.rank() < minRank || v.rank() > maxRank) {
    std::string expected =
        minRank == maxRank ? std::to_string(minRank) : std::to_string(minRank) + " to " + std::to_string(maxRank);
    throw InvalidArgument(
        name, "rank " + std::to_string(v.rank()) + " (shape " + toString(v.shape) + "), expected rank " + expected);
  }
}

void requireContiguous(const std::string& name, const TensorView& v) {
  if (!v.contiguous() || v.offset != 0)
    throw InvalidArgument(name, "must be a contiguous tensor starting at its buffer's start");
}

void requireShape(const std::string& name, const TensorView& v, const Shape& expected) {
  if (v.shape != expected)
    throw InvalidArgument(name, "shape " + toString(v.shape) + ", expected " + toString(expected));
}

void requireSameDtype(const std::string& name, const TensorView& v, const std::string& otherName,
                      const TensorView& other) {
  if (v.dtype != other.dtype)
    throw InvalidArgument(
        name, std::string("dtype ") + toString(v.dtype) + " differs from " + otherName + "'s " + toString(other.dtype));
}

void requireFitsDevice(const Context& ctx, const std::string& name, const TensorView& v) {
  const uint64_t limit = ctx.info().maxStorageBufferRange;
  if (v.buffer->size() > limit)
    throw Unsupported("argument '" + name + "': " + std::to_string(v.buffer->size()) +
                      " bytes exceed this device's storage buffer limit of " + std::to_string(limit) +
                      " bytes (maxStorageBufferRange); split the work into smaller tensors");
  if (v.offset + v.spanElements() > (int64_t{1} << 32) - 1)
    throw Unsupported("argument '" + name + "': more than 2^32 elements");
}

void requireDtypeSupported(const Context& ctx, const std::string& name, const TensorView& v) {
  if (v.dtype == DType::F16 && !ctx.info().storageBuffer16BitAccess)
    throw Unsupported("argument '" + name + "': f16 storage needs storageBuffer16BitAccess, which " + ctx.info().name +
                      " lacks");
}

BlockRows requireBlockRows(const Context& ctx, const std::string& name, const TensorView& w) {
  requireFitsDevice(ctx, name, w);
  const int64_t block = blockElements(w.dtype), k = w.shape[1];
  const std::string format = toString(w.dtype);
  if (k % block != 0)
    throw InvalidArgument(name, "K = " + std::to_string(k) + " is not a multiple of " + format + "'s block of " +
                                    std::to_string(block) + " elements");
  if (w.strides[1] != 1 || w.offset % block != 0 || (w.shape[0] > 1 && w.strides[0] % block != 0))
    throw InvalidArgument(name, "a " + format + " weight's rows must be whole blocks of " + std::to_string(block) +
                                    " (offset " + std::to_string(w.offset) + ", strides " + toString(w.strides) + ")");
  const auto bytesOf = [&](int64_t elements) { return static_cast<int64_t>(storageBytes(w.dtype, elements)); };
  const BlockRows rows{checkedU32(name, bytesOf(w.offset)),
                       w.shape[0] > 1 ? checkedU32(name, bytesOf(w.strides[0])) : 0u};
  const int64_t end = bytesOf(w.offset + (w.shape[0] - 1) * (w.shape[0] > 1 ? w.strides[0] : 0) + k);
  if (static_cast<uint64_t>((end + 3) / 4 * 4) > w.buffer->size())
    throw InvalidArgument(name, "its blocks end at byte " + std::to_string(end) + " of a " +
                                    std::to_string(w.buffer->size()) +
                                    "-byte buffer; the kernels read whole 32-bit words (Tensor rounds its buffer up)");
  return rows;
}

uint32_t checkedU32(const std::string& name, int64_t value) {
  if (value < 0 || value > int64_t{0xffffffff})
    throw Unsupported("argument '" + name + "': value " + std::to_string(value) + " out of 32-bit range");
  return static_cast<uint32_t>(value);
}

void requireLoopBudget(const Context& ctx, uint64_t iterations, const std::string& what) {
  const uint32_t limit = ctx.info().loopIterationLimit;
  if (limit == 0) return;
  const uint64_t budget = limit - limit / 16;
  if (iterations > budget)
    throw Unsupported(what + " needs " + std::to_string(iterations) + " loop iterations per invocation; " +
                      ctx.info().name + " stops loops after " + std::to_string(limit));
}

}  // namespace vkattn::detail
