// Result-id positions per opcode (see result_ids.hpp), as ranges of the SPIR-V registry's opcodes.
#include "result_ids.hpp"

#include <array>
#include <utility>

namespace vkattn::spirv {
namespace {

using Range = std::pair<uint32_t, uint32_t>;  // inclusive

// Core opcodes with <Result Type> <Result id>.
constexpr std::array kTypedCore = {
    Range{1, 1},     Range{12, 12},   Range{41, 46},   Range{48, 52},   Range{54, 55},   Range{57, 57},
    Range{59, 61},   Range{65, 70},   Range{77, 84},   Range{86, 98},   Range{100, 107}, Range{109, 124},
    Range{126, 152}, Range{154, 191}, Range{194, 205}, Range{207, 215}, Range{227, 227}, Range{229, 242},
    Range{245, 245}, Range{259, 259}, Range{261, 271}, Range{274, 279}, Range{282, 286}, Range{291, 296},
    Range{299, 300}, Range{303, 316}, Range{318, 318}, Range{320, 321}, Range{323, 326}, Range{328, 328},
    Range{333, 366}};
// Core opcodes with a <Result id> and no type (OpString, OpExtInstImport, types, OpDecorationGroup,
// OpLabel, OpTypePipeStorage, OpTypeNamedBarrier).
constexpr std::array kUntypedCore = {Range{7, 7},   Range{11, 11},   Range{19, 38},  Range{73, 73},
                                     Range{248, 248}, Range{322, 322}, Range{327, 327}};
constexpr uint32_t kCoreEnd = 367;

bool inRanges(uint32_t opcode, const auto& ranges) {
  for (const auto& [first, last] : ranges)
    if (opcode >= first && opcode <= last) return true;
  return false;
}

}  // namespace

ResultShape resultShape(uint32_t opcode) noexcept {
  if (inRanges(opcode, kTypedCore)) return ResultShape::TypeAndResult;
  if (inRanges(opcode, kUntypedCore)) return ResultShape::ResultOnly;
  if (opcode < kCoreEnd) return ResultShape::None;
  switch (opcode) {
    case 4456:  // OpTypeCooperativeMatrixKHR
    case 5358:  // OpTypeCooperativeMatrixNV
      return ResultShape::ResultOnly;
    case 4457:  // OpCooperativeMatrixLoadKHR
    case 4459:  // OpCooperativeMatrixMulAddKHR
    case 4460:  // OpCooperativeMatrixLengthKHR
    case 5359:  // OpCooperativeMatrixLoadNV
    case 5361:  // OpCooperativeMatrixMulAddNV
    case 5362:  // OpCooperativeMatrixLengthNV
    case 4421:  // OpSubgroupBallotKHR
    case 4422:  // OpSubgroupFirstInvocationKHR
    case 4428:  // OpSubgroupAllKHR
    case 4429:  // OpSubgroupAnyKHR
    case 4430:  // OpSubgroupAllEqualKHR
    case 4432:  // OpSubgroupReadInvocationKHR
      return ResultShape::TypeAndResult;
    case 4458:  // OpCooperativeMatrixStoreKHR
    case 5360:  // OpCooperativeMatrixStoreNV
    case 4416:  // OpTerminateInvocation
    case 5632:  // OpDecorateString
    case 5633:  // OpMemberDecorateString
      return ResultShape::None;
    default:
      return ResultShape::Unknown;
  }
}

}  // namespace vkattn::spirv
