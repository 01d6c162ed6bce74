#include <algorithm>
#include <string>

#include "op_row_definition.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn {
namespace detail {

// VKATTN_EACH_OP_ROW(X): X(name) for every VKATTN_OP_ROW(name) in runtime/src/ops (generated).
#include "op_row_list.inc"

#define VKATTN_DECLARE_OP_ROW(name) VKATTN_OP_ROW(name);
VKATTN_EACH_OP_ROW(VKATTN_DECLARE_OP_ROW)
#undef VKATTN_DECLARE_OP_ROW

namespace {

std::vector<OpRow> collectOpRows() {
#define VKATTN_CALL_OP_ROW(name) opRowOf_##name(),
  std::vector<OpRow> rows{VKATTN_EACH_OP_ROW(VKATTN_CALL_OP_ROW)};
#undef VKATTN_CALL_OP_ROW
  std::sort(rows.begin(), rows.end(), [](const OpRow& a, const OpRow& b) { return a.name < b.name; });
  return rows;
}

}  // namespace
}  // namespace detail

const Tolerance& OpRow::toleranceFor(DType storage) const {
  if (storage == DType::F32) return f32;
  if (storage == DType::F16) return f16;
  throw Error("op " + name + " states tolerances for f32 and f16 storage, not " + toString(storage));
}

const std::vector<OpRow>& opRows() {
  static const std::vector<OpRow> rows = detail::collectOpRows();
  return rows;
}

const OpRow& opRow(std::string_view name) {
  const std::vector<OpRow>& rows = opRows();
  const auto found = std::find_if(rows.begin(), rows.end(), [&](const OpRow& row) { return row.name == name; });
  if (found == rows.end()) throw Error("no op named " + std::string(name) + " has a row (VKATTN_OP_ROW)");
  return *found;
}

}  // namespace vkattn
