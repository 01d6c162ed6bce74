// A minimal reproducer for VK_NV_cooperative_matrix2's row reductions on the default device
// (VKATTN_DEVICE picks another): shaders/reproducers/coopmat2_row_reduce.comp reduces each row of a
// ROWS x 16 fp32 accumulator to its max and its sum on one subgroup, hands every element its row
// and column, and stores the matrix back; each result is compared with the CPU, element by element.
//   vkattn_coopmat2_row_reduce [ROWS...]
// ROWS defaults to the device's row granularity and two and four times it (within its largest
// flexible dimension); the attention kernel (attention_coopmat2.comp) uses the granularity itself.
// Prints a line per case and exits 1 when any case is wrong, 77 when the device lacks
// cooperative-matrix-2 (so there is nothing to reproduce), 0 otherwise.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/vkattn.hpp"

namespace {

using namespace vkattn;

struct ShaderEntry {
  const char* name;
  std::span<const uint32_t> code;
};
// The word arrays and kShaderTable, from shaders/CMakeLists.txt's `reproducers` registry.
#include "reproducers_shader_table.inc"

constexpr uint32_t kColumns = 16;

// The rows of `got` (rows x kColumns, row-major) that differ from `want` anywhere, as "8-15".
std::string wrongRows(const std::vector<float>& got, const std::vector<float>& want, uint32_t rows, double tolerance) {
  std::string out;
  int runStart = -1;
  auto close = [&](uint32_t end) {
    if (runStart < 0) return;
    std::string range = std::to_string(runStart);
    if (end - 1 > static_cast<uint32_t>(runStart)) {
      range += '-';
      range += std::to_string(end - 1);
    }
    if (!out.empty()) out += ",";
    out += range;
    runStart = -1;
  };
  for (uint32_t r = 0; r < rows; ++r) {
    bool wrong = false;
    for (uint32_t c = 0; c < kColumns; ++c)
      wrong = wrong || !(std::fabs(got[r * kColumns + c] - want[r * kColumns + c]) <= tolerance);
    if (wrong && runStart < 0) runStart = static_cast<int>(r);
    if (!wrong) close(r);
  }
  close(rows);
  return out;
}

// Runs one case; true when every result is right.
bool runCase(Context& ctx, const Coopmat2Choice& choice, uint32_t rows) {
  const uint32_t n = rows * kColumns;
  std::vector<float> a(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = 10.0f * std::sin(1.3f * static_cast<float>(i));
  std::vector<float> rowMax(n), rowSum(n), place(n);
  for (uint32_t r = 0; r < rows; ++r) {
    float mx = a[r * kColumns];
    double sum = 0;
    for (uint32_t c = 0; c < kColumns; ++c) {
      mx = std::max(mx, a[r * kColumns + c]);
      sum += a[r * kColumns + c];
    }
    for (uint32_t c = 0; c < kColumns; ++c) {
      rowMax[r * kColumns + c] = mx;
      rowSum[r * kColumns + c] = static_cast<float>(sum);
      place[r * kColumns + c] = static_cast<float>(r * 1000 + c);
    }
  }
  Tensor input = ctx.tensor({static_cast<int64_t>(n)}, a), output = ctx.tensor({static_cast<int64_t>(4 * n)});
  const PipelineDesc desc{"reproducers/coopmat2_row_reduce",
                          2,
                          0,
                          SpecConstants().set(0u, choice.subgroupSize).set(1u, rows).set(2u, kColumns),
                          choice.subgroupSize,
                          kShaderTable[0].code};
  ctx.recorder().dispatch(ctx.pipelines().get(desc), {{0, &input.buffer()}, {1, &output.buffer()}}, nullptr, 0,
                          {1, 1, 1});
  ctx.recorder().submit();
  const std::vector<float> got = output.download();
  auto block = [&](uint32_t i) { return std::vector<float>(got.begin() + i * n, got.begin() + (i + 1) * n); };
  const std::string results[] = {wrongRows(block(0), rowMax, rows, 0.0), wrongRows(block(1), rowSum, rows, 1e-3),
                                 wrongRows(block(2), place, rows, 0.0), wrongRows(block(3), a, rows, 0.0)};
  const char* names[] = {"row max", "row sum", "element row/column", "load/store"};
  std::printf("%3u rows (%u of granularity %u), 16 columns:", rows, rows / choice.rows, choice.rows);
  bool right = true;
  for (int i = 0; i < 4; ++i) {
    std::printf("  %s %s", names[i], results[i].empty() ? "right" : ("wrong in rows " + results[i]).c_str());
    right = right && results[i].empty();
  }
  std::printf("\n");
  return right;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Context ctx;
    const Coopmat2Choice choice = coopmat2ChoiceFor(ctx.info());
    std::printf("device: %s\n", ctx.info().name.c_str());
    if (!choice.usable) {
      std::printf("no cooperative-matrix-2 to test: %s\n", choice.reason.c_str());
      return 77;
    }
    std::vector<uint32_t> rows;
    for (int i = 1; i < argc; ++i) {
      char* end = nullptr;
      const long value = std::strtol(argv[i], &end, 10);
      if (*end != '\0' || value <= 0 || value % choice.rows != 0 || value > choice.maxDimension) {
        std::fprintf(stderr, "vkattn_coopmat2_row_reduce: ROWS '%s' must be a multiple of %u up to %u\n", argv[i],
                     choice.rows, choice.maxDimension);
        return 2;
      }
      rows.push_back(static_cast<uint32_t>(value));
    }
    if (rows.empty())
      for (uint32_t times : {1u, 2u, 4u})
        if (times * choice.rows <= choice.maxDimension) rows.push_back(times * choice.rows);
    bool right = true;
    for (uint32_t r : rows) right = runCase(ctx, choice, r) && right;
    return right ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vkattn_coopmat2_row_reduce: %s\n", e.what());
    return 2;
  }
}
