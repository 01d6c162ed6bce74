// VKATTN_OP_ROW(name) { return OpRow{...}; } in namespace vkattn::detail of an op's source defines
// that op's row. The build finds each such line in runtime/src/ops/*.cpp (cmake/VkattnOpRows.cmake)
// and lists it in op_row_list.inc, which op_rows.cpp reads: adding a row edits no other file.
#pragma once

#include "vkattn/ops/op_row.hpp"

#define VKATTN_OP_ROW(name) ::vkattn::OpRow opRowOf_##name()
