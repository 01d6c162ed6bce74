// A conformance matrix in the manner of ggml's flash-attention tests: head sizes 40 .. 576 (the
// MLA pair 576/512 with V a view of K, 192/128, 320/256), GQA ratios 1 .. 32, query counts 1, 3,
// 32 and 75 over 113, 512 and 1024 keys, an additive mask with -inf entries, sinks, ALiBi,
// softcap, and K/V stored as f32, f16, bf16, Q8_0 and Q4_0 — each case on the rows kernel, and on
// the tiled and fragment kernels (matrix units or emulated) where they take it, against the
// double reference.
#include <cmath>
#include <sstream>
#include <string>

#include "support/attention_check.hpp"
#include "support/test_context.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

struct MatrixCase {
  std::size_t dk, dv, heads, gqa, queries, keys;
  bool mask = false, sinks = false, alibi = false;
  double softcap = 0.0;
  DType q = DType::F32, kv = DType::F32;
  std::size_t batch = 1;
};

std::string nameOf(const MatrixCase& c) {
  std::ostringstream s;
  s << "d" << c.dk << "_" << c.dv << "_h" << c.heads << "_gqa" << c.gqa << "_q" << c.queries << "_kv" << c.keys << "_b"
    << c.batch << "_" << toString(c.q) << "_kv_" << toString(c.kv) << (c.mask ? "_mask" : "")
    << (c.sinks ? "_sinks" : "") << (c.alibi ? "_alibi" : "") << (c.softcap > 0 ? "_softcap" : "");
  return s.str();
}

class AttentionMatrix : public VkattnTest, public ::testing::WithParamInterface<MatrixCase> {};

TEST_P(AttentionMatrix, MatchesReference) {
  const MatrixCase& c = GetParam();
  auto pr = problem(c.batch, c.heads, c.heads / c.gqa, c.queries, c.keys, c.dk, c.dv);
  pr.scale = 1.0 / std::sqrt(static_cast<double>(c.dk));
  pr.softcap = c.softcap;
  pr.causal = c.queries > 1 && c.queries % 2 == 1;  // odd prompts causal from the bottom-right corner
  pr.bottomRight = true;
  AttentionOptions o = optionsFor(pr);
  HeadTerms terms;
  addHeadTerms(ctx(), pr, o, terms, c.sinks, c.alibi);
  // ggml's mask: one [Lq, Lk] additive mask shared by heads, here per batch, about 1 in 5 entries -inf.
  std::vector<float> mask;
  Tensor tMask;
  if (c.mask) {
    mask = randomValues(c.batch * c.queries * c.keys, 901, -1.0f, 1.0f);
    const auto cut = randomValues(mask.size(), 902);
    for (std::size_t x = 0; x < mask.size(); ++x)
      if (cut[x] > 0.6f) mask[x] = -INFINITY;
    pr.bias = &mask;
    pr.biasDims[0] = c.batch;
    pr.biasDims[2] = c.queries;
    tMask = ctx().tensor(
        {static_cast<int64_t>(c.batch), 1, static_cast<int64_t>(c.queries), static_cast<int64_t>(c.keys)}, mask);
    o.bias = tMask.view();
  }
  Inputs in = makeInputs(ctx(), pr, c.q, 900);
  if (c.kv != c.q) storeKvAs(ctx(), in, c.kv);
  std::vector<Path> paths = {Path::Rows};
  const bool dense = c.kv == c.q;
  if (dense) paths.push_back(Path::Tiled);
  const bool fragmentDims = c.dk >= 16 && c.dk <= 256 && c.dk % 8 == 0 && c.dv >= 16 && c.dv <= 256 && c.dv % 8 == 0;
  if (dense && fragmentDims && c.queries * c.keys <= 32 * 1024 && emulatedFragmentsRun(ctx()))
    paths.push_back(Path::CoopmatEmulated);
  if (dense && fragmentDims && ctx().info().cooperativeMatrixF16) paths.push_back(Path::Coopmat);
  for (Path path : paths) check(ctx(), path, pr, in, o, c.q);
}

// MLA: the 576-feature latent cache is K and its first 512 features are V (a view of K's buffer).
TEST_F(VkattnTest, AttentionMatrixMlaValueIsAViewOfKey) {
  for (std::size_t queries : {1u, 32u}) {
    SCOPED_TRACE("queries " + std::to_string(queries));
    auto pr = problem(1, 16, 1, queries, 512, 576, 512);  // MQA, GQA ratio 16
    pr.scale = 1.0 / std::sqrt(576.0);
    AttentionOptions o = optionsFor(pr);
    HeadTerms terms;
    addHeadTerms(ctx(), pr, o, terms, true, false);
    Inputs in = makeInputs(ctx(), pr, DType::F32, 910);
    const TensorView& k = in.tk.view();
    in.vRead = TensorView{k.buffer, DType::F32, {1, 1, 512, 512}, k.strides, k.offset};
    in.v.clear();
    for (std::size_t j = 0; j < pr.lk; ++j)
      in.v.insert(in.v.end(), in.k.begin() + static_cast<std::ptrdiff_t>(j * 576),
                  in.k.begin() + static_cast<std::ptrdiff_t>(j * 576 + 512));
    check(ctx(), Path::Rows, pr, in, o, DType::F32);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ggml, AttentionMatrix,
    ::testing::Values(MatrixCase{40, 40, 4, 1, 1, 113, true}, MatrixCase{64, 64, 8, 4, 3, 512, false, true, true},
                      MatrixCase{80, 80, 4, 1, 32, 113, false, false, false, 50.0, DType::F16, DType::F16},
                      MatrixCase{96, 96, 12, 12, 75, 113, true, false, true},
                      MatrixCase{112, 112, 4, 2, 1, 1024, false, true, false, 0.0, DType::F32, DType::BF16},
                      MatrixCase{128, 128, 32, 32, 3, 512, false, true, false, 0.0, DType::F32, DType::Q8_0},
                      MatrixCase{128, 128, 8, 4, 75, 1024, true, false, false, 30.0, DType::F32, DType::Q4_0},
                      MatrixCase{192, 128, 4, 1, 32, 512, false, false, true, 0.0, DType::F16, DType::F16},
                      MatrixCase{256, 256, 4, 4, 1, 1024, false, true, false, 0.0, DType::F16, DType::Q8_0},
                      MatrixCase{320, 256, 4, 2, 3, 113, true, false, false, 0.0, DType::F32, DType::BF16},
                      MatrixCase{576, 512, 8, 8, 75, 113, false, true, true, 0.0, DType::F32, DType::Q8_0},
                      MatrixCase{64, 64, 2, 1, 75, 1024, true, true, true, 20.0, DType::F16, DType::F16, 3},
                      MatrixCase{40, 40, 4, 4, 32, 512, false, false, false, 0.0, DType::F32, DType::F32, 3}),
    [](const ::testing::TestParamInfo<MatrixCase>& info) { return nameOf(info.param); });

}  // namespace
}  // namespace vkattn::test
