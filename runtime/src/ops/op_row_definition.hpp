// VKATTN_OP_ROW(name) { return OpRow{...}; } in namespace vkattn::detail of an op's source defines
// that op's row. The build finds each such line in runtime/src/ops/*.cpp (cmake/VkattnOpRows.cmake)
// and lists it in op_row_list.inc, which op_rows.cpp reads: adding a row edits no other file.
#pragma once

#include <string>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"
#include "vkattn/ops/op_row.hpp"

#define VKATTN_OP_ROW(name) ::vkattn::OpRow opRowOf_##name()

namespace vkattn::detail {

// The catalog shapes "<label> f32" and "<label> f16" of an op whose output y has x's shape and
// dtype: call(ctx, x, y) on tensors of `shape`.
template <typename Call>
std::vector<CatalogShape> sameShapeCatalog(const std::string& label, const Shape& shape, Call call) {
  std::vector<CatalogShape> shapes;
  for (DType dtype : {DType::F32, DType::F16})
    shapes.push_back({label + " " + toString(dtype), [=](Context& ctx) {
                        const Tensor x = ctx.tensor(shape, dtype), y = ctx.tensor(shape, dtype);
                        call(ctx, x.view(), y.view());
                      }});
  return shapes;
}

}  // namespace vkattn::detail
