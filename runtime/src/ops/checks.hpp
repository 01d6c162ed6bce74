// Argument checks shared by the ops. Each throws InvalidArgument naming the argument and what
// was expected, or Unsupported when the device cannot hold the data.
#pragma once

#include <initializer_list>
#include <string>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn::detail {

void requireTensor(const std::string& name, const TensorView& v);
void requireDtype(const std::string& name, const TensorView& v, std::initializer_list<DType> allowed);
void requireRank(const std::string& name, const TensorView& v, int64_t minRank, int64_t maxRank);
void requireContiguous(const std::string& name, const TensorView& v);
void requireShape(const std::string& name, const TensorView& v, const Shape& expected);
void requireSameDtype(const std::string& name, const TensorView& v, const std::string& otherName,
                      const TensorView& other);
// The view's buffer fits one storage binding and its element indices fit 32 bits.
void requireFitsDevice(const Context& ctx, const std::string& name, const TensorView& v);
// fp16 storage needs storageBuffer16BitAccess.
void requireDtypeSupported(const Context& ctx, const std::string& name, const TensorView& v);

// A weight [N, K] whose rows are whole blocks of its format (a block format, or f16 as blocks of
// one), of one stride: every 32-bit word the kernels read lies inside its buffer. Its first
// block's byte and its row stride in bytes (even numbers; 0 for one row).
struct BlockRows {
  uint32_t firstByte;
  uint32_t rowBytes;
};
BlockRows requireBlockRows(const Context& ctx, const std::string& name, const TensorView& w);

// `value` as a 32-bit push-constant field; Unsupported naming argument `name` when it does not fit.
uint32_t checkedU32(const std::string& name, int64_t value);
// Throws Unsupported when an invocation would loop `iterations` times, past the driver's limit.
void requireLoopBudget(const Context& ctx, uint64_t iterations, const std::string& what);

}  // namespace vkattn::detail
