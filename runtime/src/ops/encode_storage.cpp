#include "vkattn/ops/encode_storage.hpp"

#include <kernel_interface.h>
#include <push_constants.h>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn {
namespace {

// The encoder for each storage format y may have (encodeStorage's dtype check comes first).
detail::ShaderId encodeModule(DType format) {
  if (const auto* module = detail::shaders::encode_storage_by_format.find(format)) return *module;
  throw Error(std::string("encodeStorage has no module for ") + toString(format));
}

}  // namespace

void encodeStorage(Context& ctx, const TensorView& x, const TensorView& y) {
  using namespace detail;
  requireTensor("x", x);
  requireTensor("y", y);
  requireDtype("x", x, {DType::F32});
  requireDtype("y", y, {DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0});
  if (!x.contiguous()) throw InvalidArgument("x", "must be contiguous");
  if (!y.contiguous()) throw InvalidArgument("y", "must be contiguous");
  requireFitsDevice(ctx, "x", x);
  requireFitsDevice(ctx, "y", y);
  if (y.numel() != x.numel())
    throw InvalidArgument("y", std::to_string(y.numel()) + " elements, x has " + std::to_string(x.numel()));
  const int64_t block = blockElements(y.dtype);
  if (y.offset % block != 0 || y.numel() % block != 0)
    throw InvalidArgument("y", std::string(toString(y.dtype)) + " takes whole blocks of " + std::to_string(block) +
                                   " elements from a block boundary (offset " + std::to_string(y.offset) + ", " +
                                   std::to_string(y.numel()) + " elements)");
  if (x.numel() == 0) return;
  pc::EncodeParams p{};
  p.count = checkedU32("x", x.numel());
  p.xElement = checkedU32("x", x.offset);
  p.yElement = checkedU32("y", y.offset);
  const uint64_t firstByte = storageBytes(y.dtype, y.offset);
  const uint64_t endByte = firstByte + storageBytes(y.dtype, y.numel());
  const uint64_t words = (endByte + 3) / 4 - firstByte / 4;
  const uint32_t workgroup = 64;
  recordOp(ctx, {encodeModule(y.dtype), ENCODE_BINDING_COUNT, SpecConstants().set(SPEC_WORKGROUP_SIZE, workgroup)},
           {{ENCODE_BINDING_X, x.buffer}, {ENCODE_BINDING_Y, y.buffer}}, p, groupsFor(ctx.device(), words, workgroup),
           {"encodeStorage",
            {"x"},
            ENCODE_BINDING_STATUS,
            {"holds NaN or infinity, or a block too large for its f16 scale, which " + std::string(toString(y.dtype)) +
             " cannot store"}});
  ctx.flush();
}

}  // namespace vkattn
