// The NV -> KHR cooperative-matrix rewriter and its structural checker, on hand-made modules
// (every operand placement checked word by word) and on modules glslc compiled from
// tests/khr/*.comp at build time.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "khr_check.hpp"
#include "number_text_file.hpp"
#include "nv_to_khr.hpp"
#include "spirv_words.hpp"

namespace vkattn::spirv {
namespace {

// Opcodes of the hand-made module beyond those in spirv_words.hpp.
constexpr uint32_t kOpMemoryModel = 14, kOpEntryPoint = 15, kOpExecutionMode = 16, kOpTypeVoid = 19,
                   kOpTypeArray = 28, kOpTypePointer = 32, kOpTypeFunction = 33, kOpFunctionEnd = 56,
                   kOpAccessChain = 65, kOpLabel = 248, kOpReturn = 253;
constexpr uint32_t kWorkgroup = 4, kSubgroupScope = 3;

// A minimal NV compute module: A (f16 16x32), B (f16 32x8) and C (f32 16x8) as distinct types,
// loads row- and column-major (one with memory operands), a product, a store and a length.
struct NvModule {
  uint32_t componentA = 3, componentB = 3, componentC = 4;  // f16, f16, f32
  uint32_t typeOfB = 11;                                    // 10 makes A and B one type
  uint32_t columnMajorOpcode = op::ConstantTrue;
  bool convertCToA = false;
  uint32_t bound = 29;

  std::vector<uint32_t> words() const {
    Module m;
    m.header = {kMagic, 0x00010500, 0, bound, 0};
    auto add = [&](uint32_t opcode, std::vector<uint32_t> operands) {
      m.instructions.push_back(makeInstruction(opcode, std::move(operands)));
    };
    add(op::Capability, {1});
    add(op::Capability, {9});
    add(op::Capability, {capability::VulkanMemoryModel});
    add(op::Capability, {capability::CooperativeMatrixNV});
    add(op::Extension, encodeString("SPV_NV_cooperative_matrix"));
    add(kOpMemoryModel, {0, 3});
    std::vector<uint32_t> entry = {5, 21};
    for (uint32_t w : encodeString("main")) entry.push_back(w);
    add(kOpEntryPoint, entry);
    add(kOpExecutionMode, {21, 17, 32, 1, 1});
    std::vector<uint32_t> name = {24};
    for (uint32_t w : encodeString("a")) name.push_back(w);
    add(op::Name, name);
    add(kOpTypeVoid, {1});
    add(kOpTypeFunction, {2, 1});
    add(op::TypeFloat, {3, 16});
    add(op::TypeFloat, {4, 32});
    add(op::TypeInt, {5, 32, 0});
    add(op::Constant, {5, 6, 16});
    add(op::Constant, {5, 7, 32});
    add(op::Constant, {5, 8, 8});
    add(op::Constant, {5, 9, kSubgroupScope});
    add(op::TypeCooperativeMatrixNV, {10, componentA, 9, 6, 7});
    add(op::TypeCooperativeMatrixNV, {11, componentB, 9, 7, 8});
    add(op::TypeCooperativeMatrixNV, {12, componentC, 9, 6, 8});
    add(op::TypeBool, {13});
    add(columnMajorOpcode, {13, 14});
    add(op::ConstantFalse, {13, 15});
    add(kOpTypeArray, {16, 3, 7});
    add(kOpTypePointer, {17, kWorkgroup, 16});
    add(op::Variable, {17, 18, kWorkgroup});
    add(kOpTypePointer, {19, kWorkgroup, 3});
    add(op::Constant, {5, 20, 0});
    add(op::Function, {1, 21, 0, 2});
    add(kOpLabel, {22});
    add(kOpAccessChain, {19, 23, 18, 20});
    add(op::CooperativeMatrixLoadNV, {10, 24, 23, 6, 15, 0x2, 2});  // Aligned 2
    add(op::CooperativeMatrixLoadNV, {typeOfB, 25, 23, 6, 14});
    add(op::CooperativeMatrixLoadNV, {12, 26, 23, 6, 15});
    add(op::CooperativeMatrixMulAddNV, {12, 27, 24, 25, 26});
    add(op::CooperativeMatrixStoreNV, {23, 27, 6, 14});
    add(op::CooperativeMatrixLengthNV, {5, 28, 12});
    if (convertCToA) add(op::FConvert, {10, 29, 27});
    add(kOpReturn, {});
    add(kOpFunctionEnd, {});
    if (convertCToA) m.header[3] = 30;
    return serialize(m);
  }
};

const Instruction* findResult(const Module& m, uint32_t opcode, uint32_t id, std::size_t resultOperand) {
  for (const auto& in : m.instructions)
    if (in.opcode() == opcode && in.operandCount() > resultOperand && in.operand(resultOperand) == id) return &in;
  return nullptr;
}

uint32_t constantValue(const Module& m, uint32_t id) {
  const Instruction* c = findResult(m, op::Constant, id, 1);
  if (!c) ADD_FAILURE() << "%" << id << " is not an OpConstant";
  return c ? c->operand(2) : ~0u;
}

std::size_t count(const Module& m, uint32_t opcode) {
  return static_cast<std::size_t>(
      std::count_if(m.instructions.begin(), m.instructions.end(), [&](const Instruction& in) { return in.opcode() == opcode; }));
}

TEST(NvToKhr, RewritesEveryInstructionOfAHandMadeModule) {
  const std::vector<uint32_t> nv = NvModule{}.words();
  const std::vector<uint32_t> khrWords = rewriteNvToKhr(nv);
  const Module khr = parse(khrWords);

  EXPECT_EQ(khr.bound(), 32u) << "three new constants (0, 1, 2)";
  EXPECT_EQ(count(khr, op::TypeCooperativeMatrixNV) + count(khr, op::CooperativeMatrixLoadNV) +
                count(khr, op::CooperativeMatrixStoreNV) + count(khr, op::CooperativeMatrixMulAddNV) +
                count(khr, op::CooperativeMatrixLengthNV),
            0u);
  const std::map<uint32_t, MatrixUse> expected = {{10, MatrixUse::A}, {11, MatrixUse::B}, {12, MatrixUse::Accumulator}};
  for (const auto& [type, use] : expected) {
    const Instruction* t = findResult(khr, op::TypeCooperativeMatrixKHR, type, 0);
    ASSERT_NE(t, nullptr) << "%" << type;
    ASSERT_EQ(t->operandCount(), 6u);
    EXPECT_EQ(constantValue(khr, t->operand(5)), static_cast<uint32_t>(use)) << "%" << type;
    EXPECT_EQ(t->operand(3), type == 11 ? 7u : 6u) << "rows kept";
  }
  const Instruction* loadA = findResult(khr, op::CooperativeMatrixLoadKHR, 24, 1);
  ASSERT_NE(loadA, nullptr);
  ASSERT_EQ(loadA->operandCount(), 7u);
  EXPECT_EQ(loadA->operand(2), 23u);
  EXPECT_EQ(constantValue(khr, loadA->operand(3)), kRowMajor);
  EXPECT_EQ(loadA->operand(4), 6u) << "stride after the layout";
  EXPECT_EQ(loadA->operand(5), 0x2u) << "memory operands kept";
  EXPECT_EQ(loadA->operand(6), 2u);
  const Instruction* loadB = findResult(khr, op::CooperativeMatrixLoadKHR, 25, 1);
  ASSERT_NE(loadB, nullptr);
  EXPECT_EQ(constantValue(khr, loadB->operand(3)), kColumnMajor);

  const Instruction* store = nullptr;
  for (const auto& in : khr.instructions)
    if (in.opcode() == op::CooperativeMatrixStoreKHR) store = &in;
  ASSERT_NE(store, nullptr);
  ASSERT_EQ(store->operandCount(), 4u);
  EXPECT_EQ(store->operand(0), 23u);
  EXPECT_EQ(store->operand(1), 27u);
  EXPECT_EQ(constantValue(khr, store->operand(2)), kColumnMajor);
  EXPECT_EQ(store->operand(3), 6u);

  const Instruction* mulAdd = findResult(khr, op::CooperativeMatrixMulAddKHR, 27, 1);
  ASSERT_NE(mulAdd, nullptr);
  EXPECT_EQ(mulAdd->operandCount(), 5u) << "no Cooperative Matrix Operands for float matrices";
  EXPECT_NE(findResult(khr, op::CooperativeMatrixLengthKHR, 28, 1), nullptr);

  bool khrCapability = false, khrExtension = false;
  for (const auto& in : khr.instructions) {
    khrCapability |= in.opcode() == op::Capability && in.operand(0) == capability::CooperativeMatrixKHR;
    khrExtension |= in.opcode() == op::Extension && decodeString(in, 0) == "SPV_KHR_cooperative_matrix";
  }
  EXPECT_TRUE(khrCapability);
  EXPECT_TRUE(khrExtension);

  const auto problems = checkKhrModule(khrWords);
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST(NvToKhr, CheckerRejectsTheNvInput) {
  const auto problems = checkKhrModule(NvModule{}.words());
  ASSERT_FALSE(problems.empty());
  const bool namesNv = std::any_of(problems.begin(), problems.end(),
                                   [](const std::string& p) { return p.find("CooperativeMatrixNV") != std::string::npos; });
  EXPECT_TRUE(namesNv);
}

TEST(NvToKhr, OneTypeInTwoRolesIsRefused) {
  NvModule m;
  m.typeOfB = 10;
  try {
    rewriteNvToKhr(m.words());
    FAIL() << "expected a SpirvError";
  } catch (const SpirvError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("%10"), std::string::npos) << what;
    EXPECT_NE(what.find("MatrixA"), std::string::npos) << what;
    EXPECT_NE(what.find("MatrixB"), std::string::npos) << what;
  }
}

TEST(NvToKhr, ConversionBetweenUsesIsRefused) {
  NvModule m;
  m.convertCToA = true;
  EXPECT_THROW(rewriteNvToKhr(m.words()), SpirvError);
}

TEST(NvToKhr, SpecialisedLayoutBecomesASelect) {
  NvModule m;
  m.columnMajorOpcode = op::SpecConstantTrue;
  const Module khr = parse(rewriteNvToKhr(m.words()));
  const Instruction* loadB = findResult(khr, op::CooperativeMatrixLoadKHR, 25, 1);
  ASSERT_NE(loadB, nullptr);
  const Instruction* select = findResult(khr, op::SpecConstantOp, loadB->operand(3), 1);
  ASSERT_NE(select, nullptr) << "layout of a specialised bool is a specialization constant";
  EXPECT_EQ(select->operand(2), op::Select);
  EXPECT_EQ(select->operand(3), 14u);
  EXPECT_EQ(constantValue(khr, select->operand(4)), kColumnMajor);
  EXPECT_EQ(constantValue(khr, select->operand(5)), kRowMajor);
  // Declared after the bool it selects on.
  std::size_t boolAt = 0, selectAt = 0;
  for (std::size_t i = 0; i < khr.instructions.size(); ++i) {
    if (&khr.instructions[i] == select) selectAt = i;
    if (findResult(khr, op::SpecConstantTrue, 14, 1) == &khr.instructions[i]) boolAt = i;
  }
  EXPECT_GT(selectAt, boolAt);
  EXPECT_TRUE(checkKhrModule(serialize(khr)).empty());
}

TEST(NvToKhr, SignedIntegerMatricesGetTheOperandsMask) {
  NvModule m;
  m.bound = 31;
  Module nv = parse(m.words());
  // Replace the component types: A and B s8, C s32 (ids 29 and 30, declared before the matrices).
  auto at = std::find_if(nv.instructions.begin(), nv.instructions.end(),
                         [](const Instruction& in) { return in.opcode() == op::TypeCooperativeMatrixNV; });
  at = nv.instructions.insert(at, makeInstruction(op::TypeInt, {29, 8, 1}));
  nv.instructions.insert(at + 1, makeInstruction(op::TypeInt, {30, 32, 1}));
  for (auto& in : nv.instructions)
    if (in.opcode() == op::TypeCooperativeMatrixNV) in.words[2] = in.operand(0) == 12 ? 30 : 29;
  const Module khr = parse(rewriteNvToKhr(serialize(nv)));
  const Instruction* mulAdd = findResult(khr, op::CooperativeMatrixMulAddKHR, 27, 1);
  ASSERT_NE(mulAdd, nullptr);
  ASSERT_EQ(mulAdd->operandCount(), 6u);
  EXPECT_EQ(mulAdd->operand(5), kSignedA | kSignedB | kSignedC | kSignedResult);
  EXPECT_TRUE(checkKhrModule(serialize(khr)).empty());
}

TEST(NvToKhr, ModulesWithoutNvMatricesOrTruncatedAreRefused) {
  std::vector<uint32_t> words = NvModule{}.words();
  EXPECT_THROW(rewriteNvToKhr(std::span(words).first(words.size() - 3)), SpirvError);
  EXPECT_THROW(rewriteNvToKhr(std::span(words).first(3)), SpirvError);
  Module m = parse(words);
  std::erase_if(m.instructions, [](const Instruction& in) {
    return in.opcode() == op::Capability && in.operand(0) == capability::CooperativeMatrixNV;
  });
  EXPECT_THROW(rewriteNvToKhr(serialize(m)), SpirvError);
}

TEST(KhrCheck, FindsABoundBelowTheIdsAndWrongUses) {
  std::vector<uint32_t> khr = rewriteNvToKhr(NvModule{}.words());
  std::vector<uint32_t> lowBound = khr;
  lowBound[3] = 20;
  auto problems = checkKhrModule(lowBound);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems.front().find("bound"), std::string::npos) << problems.front();

  // Give A the accumulator's use constant.
  Module m = parse(khr);
  const uint32_t accumulatorUse = findResult(m, op::TypeCooperativeMatrixKHR, 12, 0)->operand(5);
  for (auto& in : m.instructions)
    if (in.opcode() == op::TypeCooperativeMatrixKHR && in.operand(0) == 10) in.words[6] = accumulatorUse;
  problems = checkKhrModule(serialize(m));
  const bool namesA = std::any_of(problems.begin(), problems.end(),
                                  [](const std::string& p) { return p.find("operand A must have use MatrixA") != std::string::npos; });
  EXPECT_TRUE(namesA) << (problems.empty() ? "no problem found" : problems.front());
}

// glslc's own output (tests/khr/coopmat_roles.comp): distinct A/B/accumulator types, a specialised
// layout, an accumulator conversion and length() as a specialization constant.
TEST(NvToKhr, GlslcModuleWithDistinctRoles) {
  const std::vector<uint32_t> nv = readNumberTextFile(VKATTN_KHR_PROBE_DIR "/coopmat_roles_nv.spv.inc");
  const Module khr = parse(rewriteNvToKhr(nv));
  std::map<uint32_t, std::size_t> uses;
  for (const auto& in : khr.instructions)
    if (in.opcode() == op::TypeCooperativeMatrixKHR) ++uses[constantValue(khr, in.operand(5))];
  EXPECT_EQ(uses[0], 1u);
  EXPECT_EQ(uses[1], 1u);
  EXPECT_EQ(uses[2], 2u) << "the f32 accumulator and the f16 type it is converted to";
  bool lengthKhr = false;
  for (const auto& in : khr.instructions)
    lengthKhr |= in.opcode() == op::SpecConstantOp && in.operand(2) == op::CooperativeMatrixLengthKHR;
  EXPECT_TRUE(lengthKhr);
  const auto problems = checkKhrModule(serialize(khr));
  EXPECT_TRUE(problems.empty()) << problems.front();
  // The build ran the same rewrite through vkattn_nv_to_khr.
  EXPECT_EQ(readNumberTextFile(VKATTN_KHR_PROBE_DIR "/coopmat_roles_khr.spv.inc"), serialize(khr));
}

TEST(NvToKhr, GlslcModuleWithOneTypeForAAndBIsRefused) {
  const std::vector<uint32_t> nv = readNumberTextFile(VKATTN_KHR_PROBE_DIR "/coopmat_shared_type_nv.spv.inc");
  EXPECT_THROW(rewriteNvToKhr(nv), SpirvError);
}

}  // namespace
}  // namespace vkattn::spirv
