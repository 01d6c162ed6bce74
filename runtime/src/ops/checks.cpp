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
