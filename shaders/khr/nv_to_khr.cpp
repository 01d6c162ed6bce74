// SPV_NV_cooperative_matrix -> SPV_KHR_cooperative_matrix (see nv_to_khr.hpp). Ids of existing
// instructions are kept; the Use and layout constants the KHR forms need get fresh ids.
#include "nv_to_khr.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>

#include "result_ids.hpp"

namespace vkattn::spirv {
namespace {

const std::string kNvExtension = "SPV_NV_cooperative_matrix";
const std::string kKhrExtension = "SPV_KHR_cooperative_matrix";

struct Analysis {
  std::map<uint32_t, std::size_t> definition;  // result id -> instruction index
  std::map<uint32_t, uint32_t> typeOf;         // value id -> its type id
  std::map<uint32_t, std::string> names;       // OpName
};

Analysis analyse(const Module& module) {
  Analysis a;
  for (std::size_t i = 0; i < module.instructions.size(); ++i) {
    const Instruction& in = module.instructions[i];
    switch (resultShape(in.opcode())) {
      case ResultShape::TypeAndResult:
        a.definition[in.operand(1)] = i;
        a.typeOf[in.operand(1)] = in.operand(0);
        break;
      case ResultShape::ResultOnly:
        a.definition[in.operand(0)] = i;
        break;
      case ResultShape::None:
        break;
      case ResultShape::Unknown:
        throw SpirvError("opcode " + std::to_string(in.opcode()) + " (instruction " + std::to_string(i) +
                         ") is not known to the cooperative-matrix rewriter");
    }
    if (in.opcode() == op::Name) a.names[in.operand(0)] = decodeString(in, 1);
  }
  return a;
}

// "%12 (acc)" for error messages.
std::string describe(const Analysis& a, uint32_t id) {
  std::string text = "%";
  text += std::to_string(id);
  if (auto it = a.names.find(id); it != a.names.end() && !it->second.empty()) {
    text += " (";
    text += it->second;
    text += ")";
  }
  return text;
}

class UseAssignment {
 public:
  explicit UseAssignment(const Analysis& a) : m_analysis(a) {}

  // Returns true when the type's use was newly set.
  bool assign(uint32_t type, MatrixUse use, const std::string& why) {
    auto it = m_uses.find(type);
    if (it == m_uses.end()) {
      m_uses[type] = {use, why};
      return true;
    }
    if (it->second.first != use)
      throw SpirvError("cooperative-matrix type " + describe(m_analysis, type) + " is used as " +
                       toString(it->second.first) + " (" + it->second.second + ") and as " + toString(use) + " (" +
                       why + "); KHR types carry one use, so declare the fragments as distinct types");
    return false;
  }
  std::optional<MatrixUse> use(uint32_t type) const {
    auto it = m_uses.find(type);
    return it == m_uses.end() ? std::nullopt : std::optional<MatrixUse>(it->second.first);
  }
  const std::string& why(uint32_t type) const { return m_uses.at(type).second; }

 private:
  const Analysis& m_analysis;
  std::map<uint32_t, std::pair<MatrixUse, std::string>> m_uses;
};

bool isConversion(uint32_t opcode) {
  return (opcode >= op::ConvertFToU && opcode <= op::FConvert) || opcode == op::Bitcast;
}

uint32_t valueType(const Analysis& a, uint32_t value, const std::string& where) {
  auto it = a.typeOf.find(value);
  if (it == a.typeOf.end()) throw SpirvError(where + ": operand " + describe(a, value) + " has no known type");
  return it->second;
}

// Decides every NV type's use from the products and the conversions between matrices.
std::map<uint32_t, MatrixUse> assignUses(const Module& module, const Analysis& a, const std::set<uint32_t>& types) {
  UseAssignment uses(a);
  for (std::size_t i = 0; i < module.instructions.size(); ++i) {
    const Instruction& in = module.instructions[i];
    if (in.opcode() != op::CooperativeMatrixMulAddNV) continue;
    const std::string where = "OpCooperativeMatrixMulAddNV " + describe(a, in.operand(1));
    uses.assign(valueType(a, in.operand(2), where), MatrixUse::A, "operand A of " + where);
    uses.assign(valueType(a, in.operand(3), where), MatrixUse::B, "operand B of " + where);
    uses.assign(valueType(a, in.operand(4), where), MatrixUse::Accumulator, "operand C of " + where);
    uses.assign(in.operand(0), MatrixUse::Accumulator, "result of " + where);
  }
  // KHR conversions keep rows, columns and use: carry uses across them until nothing changes.
  std::vector<std::pair<uint32_t, uint32_t>> conversions;  // (result type, operand type)
  std::vector<std::string> conversionNames;
  for (const Instruction& in : module.instructions)
    if (isConversion(in.opcode()) && types.count(in.operand(0))) {
      const std::string where = "conversion " + describe(a, in.operand(1));
      conversions.emplace_back(in.operand(0), valueType(a, in.operand(2), where));
      conversionNames.push_back(where);
    }
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < conversions.size(); ++i) {
      const auto [to, from] = conversions[i];
      if (auto u = uses.use(from)) changed |= uses.assign(to, *u, conversionNames[i] + " from " + uses.why(from));
      if (auto u = uses.use(to)) changed |= uses.assign(from, *u, conversionNames[i] + " to " + uses.why(to));
    }
  }
  std::map<uint32_t, MatrixUse> result;
  // A matrix never multiplied is only loaded, stored or combined element-wise: any use serves.
  for (uint32_t type : types) result[type] = uses.use(type).value_or(MatrixUse::Accumulator);
  return result;
}

bool isSignedIntType(const Module& module, const Analysis& a, uint32_t type) {
  auto it = a.definition.find(type);
  if (it == a.definition.end()) return false;
  const Instruction& in = module.instructions[it->second];
  return in.opcode() == op::TypeInt && in.operand(2) == 1;
}

// The component type of a cooperative-matrix type.
uint32_t componentOf(const Module& module, const Analysis& a, uint32_t matrixType) {
  return module.instructions[a.definition.at(matrixType)].operand(1);
}

}  // namespace

std::vector<uint32_t> rewriteNvToKhr(std::span<const uint32_t> words) {
  Module module = parse(words);
  const Analysis a = analyse(module);

  bool nvCapability = false;
  std::set<uint32_t> types;
  std::optional<std::size_t> firstType, uintType;
  for (std::size_t i = 0; i < module.instructions.size(); ++i) {
    const Instruction& in = module.instructions[i];
    if (in.opcode() == op::Capability && in.operand(0) == capability::CooperativeMatrixNV) nvCapability = true;
    if (in.opcode() == op::TypeCooperativeMatrixNV) {
      types.insert(in.operand(0));
      if (!firstType) firstType = i;
    }
    if (in.opcode() == op::TypeInt && in.operand(1) == 32 && in.operand(2) == 0 && !uintType) uintType = i;
    if (in.opcode() == op::CooperativeMatrixTransposeNV)
      throw SpirvError("OpCooperativeMatrixTransposeNV has no SPV_KHR_cooperative_matrix form");
  }
  if (!nvCapability) throw SpirvError("module does not declare the CooperativeMatrixNV capability");
  if (!firstType) throw SpirvError("module declares CooperativeMatrixNV but no OpTypeCooperativeMatrixNV");
  const std::map<uint32_t, MatrixUse> uses = assignUses(module, a, types);

  // New declarations, each placed after an instruction index (-1: before the first matrix type).
  uint32_t bound = module.bound();
  std::multimap<std::ptrdiff_t, Instruction> inserts;
  uint32_t uintId = 0;
  std::ptrdiff_t constantsAfter = 0;
  if (uintType) {
    uintId = module.instructions[*uintType].operand(0);
    constantsAfter = static_cast<std::ptrdiff_t>(*uintType);
    if (*uintType > *firstType) throw SpirvError("the 32-bit unsigned integer type is declared after the matrix types");
  } else {
    uintId = bound++;
    constantsAfter = static_cast<std::ptrdiff_t>(*firstType) - 1;
    inserts.emplace(constantsAfter, makeInstruction(op::TypeInt, {uintId, 32, 0}));
  }
  uint32_t constant[3];  // 0, 1, 2: Use values, and RowMajor / ColumnMajor
  for (uint32_t v = 0; v < 3; ++v) {
    constant[v] = bound++;
    inserts.emplace(constantsAfter, makeInstruction(op::Constant, {uintId, constant[v], v}));
  }

  // NV's Column Major bool constant -> KHR's MemoryLayout integer constant.
  std::map<uint32_t, uint32_t> layoutOf;
  auto layout = [&](uint32_t columnMajor, const std::string& where) -> uint32_t {
    if (auto it = layoutOf.find(columnMajor); it != layoutOf.end()) return it->second;
    auto def = a.definition.find(columnMajor);
    if (def == a.definition.end()) throw SpirvError(where + ": Column Major operand is not defined");
    const Instruction& in = module.instructions[def->second];
    uint32_t id = 0;
    if (in.opcode() == op::ConstantTrue) {
      id = constant[kColumnMajor];
    } else if (in.opcode() == op::ConstantFalse) {
      id = constant[kRowMajor];
    } else if (in.opcode() == op::SpecConstantTrue || in.opcode() == op::SpecConstantFalse ||
               in.opcode() == op::SpecConstantOp) {
      // A specialised layout: select 1 or 0 when the pipeline is specialised.
      id = bound++;
      inserts.emplace(std::max(static_cast<std::ptrdiff_t>(def->second), constantsAfter),
                      makeInstruction(op::SpecConstantOp, {uintId, id, op::Select, columnMajor,
                                                           constant[kColumnMajor], constant[kRowMajor]}));
    } else {
      throw SpirvError(where + ": Column Major operand " + describe(a, columnMajor) + " is not a constant");
    }
    layoutOf[columnMajor] = id;
    return id;
  };

  std::vector<Instruction> rewritten;
  rewritten.reserve(module.instructions.size() + inserts.size());
  auto flushInserts = [&](std::ptrdiff_t after) {
    auto [first, last] = inserts.equal_range(after);
    for (auto it = first; it != last; ++it) rewritten.push_back(it->second);
  };
  // Operands are rewritten first (this may add inserts), then the stream is assembled.
  std::vector<Instruction> replaced = module.instructions;
  for (std::size_t i = 0; i < replaced.size(); ++i) {
    Instruction& in = replaced[i];
    const std::vector<uint32_t>& w = in.words;
    switch (in.opcode()) {
      case op::Capability:
        if (w[1] == capability::CooperativeMatrixNV) in = makeInstruction(op::Capability, {capability::CooperativeMatrixKHR});
        break;
      case op::Extension:
        if (decodeString(in, 0) == kNvExtension) in = makeInstruction(op::Extension, encodeString(kKhrExtension));
        break;
      case op::TypeCooperativeMatrixNV:
        in = makeInstruction(op::TypeCooperativeMatrixKHR,
                             {w[1], w[2], w[3], w[4], w[5], constant[static_cast<uint32_t>(uses.at(w[1]))]});
        break;
      case op::CooperativeMatrixLoadNV: {
        // NV: type, result, pointer, stride, column major, [memory operands...]
        // KHR: type, result, pointer, layout, stride, [memory operands...]
        std::vector<uint32_t> ops = {w[1], w[2], w[3], layout(w[5], "OpCooperativeMatrixLoadNV " + describe(a, w[2])),
                                     w[4]};
        ops.insert(ops.end(), w.begin() + 6, w.end());
        in = makeInstruction(op::CooperativeMatrixLoadKHR, std::move(ops));
        break;
      }
      case op::CooperativeMatrixStoreNV: {
        // NV: pointer, object, stride, column major, [memory operands...]
        // KHR: pointer, object, layout, stride, [memory operands...]
        std::vector<uint32_t> ops = {w[1], w[2], layout(w[4], "OpCooperativeMatrixStoreNV of " + describe(a, w[2])),
                                     w[3]};
        ops.insert(ops.end(), w.begin() + 5, w.end());
        in = makeInstruction(op::CooperativeMatrixStoreKHR, std::move(ops));
        break;
      }
      case op::CooperativeMatrixMulAddNV: {
        // NV takes signedness from the integer types; KHR from the Cooperative Matrix Operands.
        const std::string where = "OpCooperativeMatrixMulAddNV " + describe(a, w[2]);
        uint32_t mask = 0;
        const uint32_t operandTypes[4] = {valueType(a, w[3], where), valueType(a, w[4], where),
                                          valueType(a, w[5], where), w[1]};
        const uint32_t bits[4] = {kSignedA, kSignedB, kSignedC, kSignedResult};
        for (int k = 0; k < 4; ++k)
          if (isSignedIntType(module, a, componentOf(module, a, operandTypes[k]))) mask |= bits[k];
        std::vector<uint32_t> ops = {w[1], w[2], w[3], w[4], w[5]};
        if (mask) ops.push_back(mask);
        in = makeInstruction(op::CooperativeMatrixMulAddKHR, std::move(ops));
        break;
      }
      case op::CooperativeMatrixLengthNV:
        in = makeInstruction(op::CooperativeMatrixLengthKHR, {w[1], w[2], w[3]});
        break;
      case op::SpecConstantOp:
        // glslang emits length() as a specialization constant (the dimensions may be specialised).
        if (w[3] == op::CooperativeMatrixLengthNV) in.words[3] = op::CooperativeMatrixLengthKHR;
        break;
      default:
        break;
    }
  }
  flushInserts(-1);
  for (std::size_t i = 0; i < replaced.size(); ++i) {
    rewritten.push_back(std::move(replaced[i]));
    flushInserts(static_cast<std::ptrdiff_t>(i));
  }
  module.instructions = std::move(rewritten);
  module.header[3] = bound;
  return serialize(module);
}

}  // namespace vkattn::spirv
