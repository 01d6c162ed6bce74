// Where an instruction's result id sits: after a result type (operand 1), alone (operand 0), or
// nowhere. Core opcodes below 400 follow spirv.core.grammar.json; above that only the opcodes of
// the extensions vkattn's compute shaders use are known, and any other makes the caller fail.
#pragma once

#include <cstdint>
#include <optional>

namespace vkattn::spirv {

enum class ResultShape { None, ResultOnly, TypeAndResult, Unknown };

ResultShape resultShape(uint32_t opcode) noexcept;

}  // namespace vkattn::spirv
