// See khr_check.hpp.
#include "khr_check.hpp"

#include <map>
#include <optional>

#include "result_ids.hpp"
#include "spirv_words.hpp"

namespace vkattn::spirv {
namespace {

struct MatrixType {
  uint32_t component = 0, scope = 0, rows = 0, columns = 0, use = 0;  // ids
};

class Checker {
 public:
  explicit Checker(const Module& module) : m_module(module) {}

  std::vector<std::string> run() {
    indexResults();
    checkCapabilities();
    for (std::size_t i = 0; i < m_module.instructions.size(); ++i) checkInstruction(i);
    return std::move(m_problems);
  }

 private:
  void problem(std::size_t at, const std::string& what) {
    m_problems.push_back("instruction " + std::to_string(at) + ": " + what);
  }

  void indexResults() {
    for (std::size_t i = 0; i < m_module.instructions.size(); ++i) {
      const Instruction& in = m_module.instructions[i];
      std::optional<uint32_t> result;
      switch (resultShape(in.opcode())) {
        case ResultShape::TypeAndResult:
          result = in.operand(1);
          m_typeOf[in.operand(1)] = in.operand(0);
          break;
        case ResultShape::ResultOnly: result = in.operand(0); break;
        case ResultShape::None: break;
        case ResultShape::Unknown: problem(i, "opcode " + std::to_string(in.opcode()) + " is not known to the checker");
      }
      if (!result) continue;
      if (*result == 0 || *result >= m_module.bound())
        problem(i, "result id %" + std::to_string(*result) + " outside 1.." + std::to_string(m_module.bound() - 1) +
                       " (the header's bound)");
      if (!m_definition.emplace(*result, i).second) problem(i, "result id %" + std::to_string(*result) + " defined twice");
      if (in.opcode() == op::TypeCooperativeMatrixKHR && in.operandCount() == 6)
        m_matrices[*result] = {in.operand(1), in.operand(2), in.operand(3), in.operand(4), in.operand(5)};
    }
  }

  void checkCapabilities() {
    bool khr = false, memoryModel = false, extension = false;
    for (std::size_t i = 0; i < m_module.instructions.size(); ++i) {
      const Instruction& in = m_module.instructions[i];
      if (in.opcode() == op::Capability) {
        khr |= in.operand(0) == capability::CooperativeMatrixKHR;
        memoryModel |= in.operand(0) == capability::VulkanMemoryModel;
        if (in.operand(0) == capability::CooperativeMatrixNV) problem(i, "the CooperativeMatrixNV capability remains");
      }
      if (in.opcode() == op::Extension) {
        const std::string name = decodeString(in, 0);
        extension |= name == "SPV_KHR_cooperative_matrix";
        if (name == "SPV_NV_cooperative_matrix") problem(i, "OpExtension SPV_NV_cooperative_matrix remains");
      }
    }
    if (!khr) m_problems.push_back("no OpCapability CooperativeMatrixKHR");
    if (!extension) m_problems.push_back("no OpExtension \"SPV_KHR_cooperative_matrix\"");
    if (!memoryModel) m_problems.push_back("CooperativeMatrixKHR requires the VulkanMemoryModel capability");
  }

  // The defining instruction of `id` if it comes before instruction `at`.
  const Instruction* earlier(uint32_t id, std::size_t at, const char* role) {
    auto it = m_definition.find(id);
    if (it == m_definition.end() || it->second >= at) {
      problem(at, std::string(role) + " %" + std::to_string(id) + " is not defined before its use");
      return nullptr;
    }
    return &m_module.instructions[it->second];
  }

  bool isInt32Type(uint32_t type) const {
    auto it = m_definition.find(type);
    if (it == m_definition.end()) return false;
    const Instruction& t = m_module.instructions[it->second];
    return t.opcode() == op::TypeInt && t.operand(1) == 32;
  }

  // A 32-bit integer constant instruction; returns its value when it is a plain or default value.
  std::optional<uint32_t> int32Constant(uint32_t id, std::size_t at, const char* role) {
    const Instruction* def = earlier(id, at, role);
    if (!def) return std::nullopt;
    const uint32_t opc = def->opcode();
    if ((opc != op::Constant && opc != op::SpecConstant && opc != op::SpecConstantOp) || !isInt32Type(def->operand(0))) {
      problem(at, std::string(role) + " %" + std::to_string(id) + " is not a 32-bit integer constant instruction");
      return std::nullopt;
    }
    if (opc == op::SpecConstantOp) return std::nullopt;
    return def->operand(2);
  }

  const MatrixType* matrix(uint32_t type, std::size_t at, const char* role) {
    auto it = m_matrices.find(type);
    if (it == m_matrices.end()) {
      problem(at, std::string(role) + " type %" + std::to_string(type) + " is not an OpTypeCooperativeMatrixKHR");
      return nullptr;
    }
    return &it->second;
  }

  const MatrixType* valueMatrix(uint32_t value, std::size_t at, const char* role) {
    auto it = m_typeOf.find(value);
    if (it == m_typeOf.end()) {
      problem(at, std::string(role) + " %" + std::to_string(value) + " has no type");
      return nullptr;
    }
    return matrix(it->second, at, role);
  }

  // Constant value of a dimension or use id (the default value for specialization constants).
  std::optional<uint32_t> valueOf(uint32_t id) const {
    auto it = m_definition.find(id);
    if (it == m_definition.end()) return std::nullopt;
    const Instruction& def = m_module.instructions[it->second];
    if (def.opcode() == op::Constant || def.opcode() == op::SpecConstant) return def.operand(2);
    return std::nullopt;
  }

  bool sameValue(uint32_t x, uint32_t y) const {
    if (x == y) return true;
    auto vx = valueOf(x), vy = valueOf(y);
    return vx && vy && *vx == *vy;
  }

  void expectUse(const MatrixType* m, uint32_t use, std::size_t at, const char* role) {
    if (!m) return;
    auto value = valueOf(m->use);
    if (!value || *value != use)
      problem(at, std::string(role) + " must have use " + toString(static_cast<MatrixUse>(use)));
  }

  void checkLayout(uint32_t layout, std::size_t at) {
    auto value = int32Constant(layout, at, "MemoryLayout");
    if (value && *value != kRowMajor && *value != kColumnMajor)
      problem(at, "MemoryLayout " + std::to_string(*value) + " is neither RowMajorKHR nor ColumnMajorKHR");
  }

  void checkInstruction(std::size_t at) {
    const Instruction& in = m_module.instructions[at];
    const uint32_t opc = in.opcode();
    if ((opc >= op::TypeCooperativeMatrixNV && opc <= op::CooperativeMatrixLengthNV) ||
        opc == op::CooperativeMatrixTransposeNV) {
      problem(at, "NV cooperative-matrix opcode " + std::to_string(opc) + " remains");
      return;
    }
    switch (opc) {
      case op::TypeCooperativeMatrixKHR: {
        if (in.operandCount() != 6) return problem(at, "OpTypeCooperativeMatrixKHR needs 6 operands");
        const Instruction* component = earlier(in.operand(1), at, "Component Type");
        if (component && component->opcode() != op::TypeFloat && component->opcode() != op::TypeInt)
          problem(at, "Component Type is not a numerical scalar type");
        int32Constant(in.operand(2), at, "Scope");
        int32Constant(in.operand(3), at, "Rows");
        int32Constant(in.operand(4), at, "Columns");
        auto use = int32Constant(in.operand(5), at, "Use");
        if (use && *use > static_cast<uint32_t>(MatrixUse::Accumulator))
          problem(at, "Use " + std::to_string(*use) + " is not MatrixA, MatrixB or MatrixAccumulator");
        if (use && m_module.instructions[m_definition.at(in.operand(5))].opcode() != op::Constant)
          problem(at, "Use must be a plain (not specialised) constant");
        break;
      }
      case op::CooperativeMatrixLoadKHR:
        if (in.operandCount() < 5) return problem(at, "OpCooperativeMatrixLoadKHR without layout and stride");
        matrix(in.operand(0), at, "loaded");
        earlier(in.operand(2), at, "Pointer");
        checkLayout(in.operand(3), at);
        break;
      case op::CooperativeMatrixStoreKHR:
        if (in.operandCount() < 4) return problem(at, "OpCooperativeMatrixStoreKHR without layout and stride");
        earlier(in.operand(0), at, "Pointer");
        valueMatrix(in.operand(1), at, "stored Object");
        checkLayout(in.operand(2), at);
        break;
      case op::CooperativeMatrixMulAddKHR: checkMulAdd(in, at); break;
      case op::CooperativeMatrixLengthKHR: matrix(in.operand(2), at, "Type"); break;
      case op::SpecConstantOp:
        if (in.operand(2) == op::CooperativeMatrixLengthNV) problem(at, "OpSpecConstantOp CooperativeMatrixLengthNV remains");
        if (in.operand(2) == op::CooperativeMatrixLengthKHR) matrix(in.operand(3), at, "length's Type");
        break;
      default:
        if (((opc >= op::ConvertFToU && opc <= op::FConvert) || opc == op::Bitcast) && m_matrices.count(in.operand(0))) {
          const MatrixType* to = matrix(in.operand(0), at, "conversion result");
          const MatrixType* from = valueMatrix(in.operand(2), at, "converted value");
          if (to && from &&
              !(sameValue(to->rows, from->rows) && sameValue(to->columns, from->columns) &&
                sameValue(to->scope, from->scope) && sameValue(to->use, from->use)))
            problem(at, "a conversion must keep the matrix's scope, rows, columns and use");
        }
        break;
    }
  }

  void checkMulAdd(const Instruction& in, std::size_t at) {
    if (in.operandCount() < 5) return problem(at, "OpCooperativeMatrixMulAddKHR needs A, B and C");
    const MatrixType* result = matrix(in.operand(0), at, "MulAdd result");
    const MatrixType* a = valueMatrix(in.operand(2), at, "operand A");
    const MatrixType* b = valueMatrix(in.operand(3), at, "operand B");
    const MatrixType* c = valueMatrix(in.operand(4), at, "operand C");
    expectUse(a, static_cast<uint32_t>(MatrixUse::A), at, "operand A");
    expectUse(b, static_cast<uint32_t>(MatrixUse::B), at, "operand B");
    expectUse(c, static_cast<uint32_t>(MatrixUse::Accumulator), at, "operand C");
    expectUse(result, static_cast<uint32_t>(MatrixUse::Accumulator), at, "the result");
    if (!(a && b && c && result)) return;
    // M x K times K x N plus M x N.
    if (!sameValue(a->rows, c->rows) || !sameValue(a->rows, result->rows) || !sameValue(a->columns, b->rows) ||
        !sameValue(b->columns, c->columns) || !sameValue(b->columns, result->columns))
      problem(at, "MulAdd shapes disagree: A must be M x K, B K x N, C and the result M x N");
    if (!sameValue(a->scope, b->scope) || !sameValue(a->scope, c->scope) || !sameValue(a->scope, result->scope))
      problem(at, "MulAdd operands have different scopes");
    if (in.operandCount() > 5) {
      const uint32_t mask = in.operand(5);
      const MatrixType* matrices[4] = {a, b, c, result};
      for (int k = 0; k < 4; ++k)
        if ((mask & (1u << k)) && !isIntComponent(*matrices[k]))
          problem(at, "a signed-components operand bit is set for a matrix of non-integer components");
      if (mask & ~0x1fu) problem(at, "unknown Cooperative Matrix Operands bits");
    }
  }

  bool isIntComponent(const MatrixType& m) const {
    auto it = m_definition.find(m.component);
    return it != m_definition.end() && m_module.instructions[it->second].opcode() == op::TypeInt;
  }

  const Module& m_module;
  std::map<uint32_t, std::size_t> m_definition;
  std::map<uint32_t, uint32_t> m_typeOf;
  std::map<uint32_t, MatrixType> m_matrices;
  std::vector<std::string> m_problems;
};

}  // namespace

std::vector<std::string> checkKhrModule(std::span<const uint32_t> words) {
  try {
    const Module module = parse(words);
    return Checker(module).run();
  } catch (const std::exception& e) {
    return {e.what()};
  }
}

}  // namespace vkattn::spirv
