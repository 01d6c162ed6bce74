// Elementwise ops (activation, gated activations as swiglu and GeGLU, add) and the embedding lookup against double
// references: odd sizes (vec4 and scalar paths), f16 storage, in place, broadcast add, learned positions with an
// offset, tables in the block formats, and bad input (shapes, dtypes, NaN, ids out of range) named in the error.
#include <cmath>
#include <functional>

#include "support/compare.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/elementwise.hpp"
#include "vkattn/ops/embedding.hpp"
#include "vkattn/reference/linear_reference.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

const double kAtolF32 = toleranceFor(Checked::Elementwise, DType::F32).atol,
             kRtolF32 = toleranceFor(Checked::Elementwise, DType::F32).rtol;
const double kAtolF16 = toleranceFor(Checked::Elementwise, DType::F16).atol,
             kRtolF16 = toleranceFor(Checked::Elementwise, DType::F16).rtol;

constexpr Activation kActivations[] = {Activation::None, Activation::Relu, Activation::Gelu, Activation::GeluTanh,
                                       Activation::Silu};

class Elementwise : public VkattnTest, public ::testing::WithParamInterface<int64_t> {};

TEST_P(Elementwise, ActivationsF32AndF16) {
  const int64_t n = GetParam();
  // Wide range: the tails of GELU and SiLU, and large arguments where a naive tanh overflows.
  auto x = randomValues(static_cast<std::size_t>(n), 10 + n, -12.0f, 12.0f);
  if (n > 2) x[0] = 90.0f, x[1] = -90.0f, x[2] = 0.0f;
  for (Activation act : kActivations) {
    SCOPED_TRACE(toString(act));
    std::vector<double> ref(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) ref[i] = activationRef(x[i], act);
    EXPECT_TRUE(allClose(activation(ctx(), act, ctx().tensor({n}, x)).download(), ref, kAtolF32, kRtolF32));
    auto xh = roundToHalf(x);
    for (std::size_t i = 0; i < x.size(); ++i) ref[i] = activationRef(xh[i], act);
    Tensor th = ctx().tensor({n}, xh, DType::F16);
    activation(ctx(), act, th, th);  // in place
    EXPECT_TRUE(allClose(th.download(), ref, kAtolF16, kRtolF16));
  }
}

TEST_P(Elementwise, SwiGlu) {
  const int64_t n = GetParam();
  auto g = randomValues(static_cast<std::size_t>(n), 20 + n, -8.0f, 8.0f),
       u = randomValues(static_cast<std::size_t>(n), 21);
  std::vector<double> ref(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) ref[i] = activationRef(g[i], Activation::Silu) * u[i];
  EXPECT_TRUE(allClose(swiglu(ctx(), ctx().tensor({n}, g), ctx().tensor({n}, u)).download(), ref, kAtolF32, kRtolF32));
  auto gh = roundToHalf(g), uh = roundToHalf(u);
  for (std::size_t i = 0; i < g.size(); ++i) ref[i] = activationRef(gh[i], Activation::Silu) * uh[i];
  EXPECT_TRUE(allClose(swiglu(ctx(), ctx().tensor({n}, gh, DType::F16), ctx().tensor({n}, uh, DType::F16)).download(),
                       ref, kAtolF16, kRtolF16));
}

TEST_P(Elementwise, GatedByEveryActivation) {
  // act(gate) * up for each activation (GeGLU: Gemma's tanh GELU), in place over gate.
  const int64_t n = GetParam();
  auto g = randomValues(static_cast<std::size_t>(n), 22 + n, -8.0f, 8.0f),
       u = randomValues(static_cast<std::size_t>(n), 23);
  for (Activation act : kActivations) {
    SCOPED_TRACE(toString(act));
    std::vector<double> ref(g.size());
    for (std::size_t i = 0; i < g.size(); ++i) ref[i] = activationRef(g[i], act) * u[i];
    Tensor gate = ctx().tensor({n}, g);
    gatedActivation(ctx(), act, gate, ctx().tensor({n}, u), gate);
    EXPECT_TRUE(allClose(gate.download(), ref, kAtolF32, kRtolF32));
  }
}

TEST_P(Elementwise, AddSameShapeAndBroadcastRow) {
  const int64_t cols = GetParam(), rows = 3;
  const auto count = static_cast<std::size_t>(rows * cols);
  auto a = randomValues(count, 30 + cols), b = randomValues(count, 31),
       row = randomValues(static_cast<std::size_t>(cols), 32);
  std::vector<double> same(count), bcast(count);
  for (std::size_t i = 0; i < count; ++i) {
    same[i] = static_cast<float>(a[i] + b[i]);  // one fp32 rounding, as the kernel
    bcast[i] = static_cast<float>(a[i] + row[i % static_cast<std::size_t>(cols)]);
  }
  Tensor ta = ctx().tensor({rows, cols}, a);
  EXPECT_TRUE(allClose(add(ctx(), ta, ctx().tensor({rows, cols}, b)).download(), same, 0.0, 0.0));
  Tensor tb = ctx().tensor({cols}, row);
  add(ctx(), ta, tb, ta);  // in place, broadcast
  EXPECT_TRUE(allClose(ta.download(), bcast, 0.0, 0.0));
  auto ah = roundToHalf(a), rh = roundToHalf(row);
  for (std::size_t i = 0; i < count; ++i) bcast[i] = double(ah[i]) + rh[i % static_cast<std::size_t>(cols)];
  Tensor y = add(ctx(), ctx().tensor({rows, cols}, ah, DType::F16), ctx().tensor({cols}, rh, DType::F16));
  EXPECT_TRUE(allClose(y.download(), bcast, kAtolF16, kRtolF16));
}

INSTANTIATE_TEST_SUITE_P(OddSizes, Elementwise, ::testing::Values(1, 5, 7, 33, 1000, 4099, 300001));

TEST_F(VkattnTest, EmbeddingWithAndWithoutPositions) {
  for (int64_t dim : {1, 7, 32, 33}) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    const int64_t vocab = 50, batch = 2, seq = 5, P = 9;
    const auto D = static_cast<std::size_t>(dim);
    auto table = randomValues(static_cast<std::size_t>(vocab) * D, 40 + D);
    auto pos = randomValues(static_cast<std::size_t>(P) * D, 41 + D);
    std::vector<int32_t> ids = {0, 49, 3, 3, 17, 8, 1, 0, 42, 49};
    Tensor tt = ctx().tensor({vocab, dim}, table), tp = ctx().tensor({P, dim}, pos);
    Tensor tids = Tensor::fromHostInt(ctx().device(), {batch, seq}, ids);
    Tensor out = embedding(ctx(), tt, tids);
    EXPECT_EQ(out.shape(), (Shape{batch, seq, dim}));
    EXPECT_TRUE(allClose(out.download(), embeddingRef(table, ids, D, 5, nullptr, 0), 0.0, 0.0));
    Tensor withPos = embedding(ctx(), tt, tids, {.positions = tp.view(), .positionOffset = 4});
    EXPECT_TRUE(allClose(withPos.download(), embeddingRef(table, ids, D, 5, &pos, 4), 0.0, 0.0));
    auto th = roundToHalf(table), ph = roundToHalf(pos);
    Tensor hout = embedding(ctx(), ctx().tensor({vocab, dim}, th, DType::F16), tids,
                            {.positions = ctx().tensor({P, dim}, ph, DType::F16).view(), .positionOffset = 1});
    EXPECT_TRUE(allClose(hout.download(), embeddingRef(th, ids, D, 5, &ph, 1), kAtolF16, kRtolF16));
  }
}

// A language model's token table as the file stores it: each block format decoded as it is
// gathered, scaled, exact against the host's decoding (encodeValues/decodeValues, ggml's layouts);
// rows of one and several blocks (Q6_K's two halves apart), ids repeated and at both ends; f16
// tables into f32 rows.
TEST_F(VkattnTest, EmbeddingGathersBlockFormatTables) {
  for (DType format : {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K}) {
    for (int64_t blocks : {1, 3}) {
      const int64_t vocab = 37, dim = blocks * blockElements(format);
      SCOPED_TRACE(std::string(toString(format)) + ", dim " + std::to_string(dim));
      const std::vector<float> values = randomValues(static_cast<std::size_t>(vocab * dim), 60 + blocks);
      const std::vector<std::byte> bytes = encodeValues(format, values);
      const std::vector<float> decoded = decodeValues(format, bytes, vocab * dim);
      Tensor table = ctx().tensor({vocab, dim}, format);
      table.uploadBytes(bytes.data(), bytes.size());
      const std::vector<int32_t> ids = {0, 36, 5, 5, 17, 1};
      Tensor tids = Tensor::fromHostInt(ctx().device(), {2, 3}, ids);
      const float scale = 1.5f;
      Tensor out = embedding(ctx(), table, tids, {.scale = scale});
      EXPECT_EQ(out.dtype(), DType::F32);
      EXPECT_EQ(out.shape(), (Shape{2, 3, dim}));
      std::vector<float> expected;
      for (int32_t id : ids)
        for (int64_t c = 0; c < dim; ++c) expected.push_back(scale * decoded[static_cast<std::size_t>(id * dim + c)]);
      EXPECT_EQ(out.download(), expected);
    }
  }
  // An f16 table into f32 rows (a language model's F16 token table), with positions and a scale
  // (2: exact, however the kernel rounds the multiply-add); the scalar path at an odd width.
  for (int64_t dim : {40, 7}) {
    const auto D = static_cast<std::size_t>(dim);
    const std::vector<float> table = roundToHalf(randomValues(37 * D, 62)), pos = roundToHalf(randomValues(9 * D, 63));
    const std::vector<int32_t> ids = {0, 36, 5, 5, 17, 1};
    Tensor out = ctx().tensor({2, 3, dim});
    embedding(ctx(), ctx().tensor({37, dim}, table, DType::F16), Tensor::fromHostInt(ctx().device(), {2, 3}, ids), out,
              {.positions = ctx().tensor({9, dim}, pos, DType::F16).view(), .positionOffset = 2, .scale = 2.0f});
    std::vector<float> expected;
    for (std::size_t t = 0; t < ids.size(); ++t)
      for (std::size_t c = 0; c < D; ++c)
        expected.push_back(2.0f * table[static_cast<std::size_t>(ids[t]) * D + c] + pos[(2 + t % 3) * D + c]);
    EXPECT_EQ(out.download(), expected) << "dim " << dim;
  }
  // Positions are for f32 and f16 tables; the rows come out f32; an id outside the table is named.
  Tensor q8 = ctx().tensor({4, 32}, DType::Q8_0);
  const std::vector<std::byte> bytes = encodeValues(DType::Q8_0, randomValues(128, 61));
  q8.uploadBytes(bytes.data(), bytes.size());
  Tensor two = Tensor::fromHostInt(ctx().device(), {2}, std::vector<int32_t>{0, 3});
  EXPECT_THROW(embedding(ctx(), q8, two, {.positions = ctx().tensor({4, 32}).view()}), InvalidArgument);
  EXPECT_THROW(embedding(ctx(), q8, two, ctx().tensor({2, 32}, DType::F16)), InvalidArgument);
  EXPECT_THROW(embedding(ctx(), q8, Tensor::fromHostInt(ctx().device(), {1}, std::vector<int32_t>{4})),
               InvalidArgument);
}

void expectInvalid(const std::string& argument, const std::function<void()>& call, const std::string& fragment = "") {
  try {
    call();
    ADD_FAILURE() << "accepted; expected InvalidArgument for '" << argument << "'";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), argument) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST_F(VkattnTest, ElementwiseAndEmbeddingBadInput) {
  Context& c = ctx();
  Tensor a = c.tensor({4, 6}, randomValues(24, 1)), b = c.tensor({4, 6}, randomValues(24, 2));
  expectInvalid("b", [&] { add(c, a, c.tensor({4})); });
  expectInvalid("b", [&] { add(c, a, c.tensor({4, 6}, randomValues(24, 3), DType::F16)); });
  expectInvalid("y", [&] { add(c, a, b, c.tensor({4, 5})); });
  expectInvalid("up", [&] { swiglu(c, a, c.tensor({24})); });
  expectInvalid("x", [&] {
    activation(c, Activation::Relu, Tensor::fromHostInt(c.device(), {2}, std::vector<int32_t>{1, 2}));
  });
  auto nanAt = [&](Shape shape, std::size_t at) {
    auto v = randomValues(static_cast<std::size_t>(elementCount(shape)), 4);
    v[at] = NAN;
    return c.tensor(shape, v);
  };
  expectInvalid(
      "x",
      [&] {
        activation(c, Activation::Relu, nanAt({4, 6}, 5));
      },
      "NaN");
  expectInvalid(
      "gate",
      [&] {
        swiglu(c, nanAt({4, 6}, 23), b);
      },
      "NaN");
  expectInvalid(
      "up",
      [&] {
        swiglu(c, a, nanAt({4, 6}, 0));
      },
      "NaN");
  expectInvalid(
      "a",
      [&] {
        add(c, nanAt({4, 6}, 9), b);
      },
      "NaN");
  expectInvalid(
      "b", [&] { add(c, a, nanAt({6}, 2)); }, "NaN");

  Tensor table = c.tensor({10, 8}, randomValues(80, 5));
  auto ids = [&](std::vector<int32_t> v) {
    return Tensor::fromHostInt(c.device(), {static_cast<int64_t>(v.size())}, v);
  };
  expectInvalid(
      "ids",
      [&] {
        embedding(c, table, ids({1, 10, 2}));
      },
      "outside [0, 10)");
  expectInvalid(
      "ids", [&] { embedding(c, table, ids({-1})); }, "outside [0, 10)");
  expectInvalid("ids", [&] { embedding(c, table, c.tensor({3})); });  // f32 ids
  expectInvalid(
      "table",
      [&] {
        embedding(c, nanAt({10, 8}, 17), ids({2}));
      },
      "NaN");
  expectInvalid("positions", [&] {
    embedding(c, table, ids({1, 2, 3}), {.positions = c.tensor({4, 8}).view(), .positionOffset = 2});
  });
  expectInvalid("positions", [&] { embedding(c, table, ids({1}), {.positions = c.tensor({4, 7}).view()}); });
  expectInvalid("positionOffset", [&] { embedding(c, table, ids({1}), {.positionOffset = 1}); });
  // A bad id leaves zeros in its row and reads nothing out of bounds; the next call is clean.
  Tensor out = c.tensor({2, 8});
  expectInvalid("ids", [&] { embedding(c, table, ids({1, 1000000}), out); });
  auto got = out.download();
  for (std::size_t i = 8; i < 16; ++i) EXPECT_EQ(got[i], 0.0f);
  EXPECT_NO_THROW(embedding(c, table, ids({9, 0}), out));
}

}  // namespace
}  // namespace vkattn::test
