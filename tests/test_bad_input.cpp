// Every public entry point rejects bad input with an error that names the argument, and the
// context stays usable afterwards.
#include <cmath>
#include <limits>

#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/rope.hpp"
#include "vkattn/ops/row_ops.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

// Runs `f`, expecting InvalidArgument about `argument` whose message contains `fragment`.
template <typename F>
void expectInvalid(F&& f, const std::string& argument, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one about '" << argument << "'";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), argument) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

class BadInput : public VkattnTest {
 protected:
  Tensor x = ctx().tensor({3, 5}, randomValues(15, 1));
  Tensor y = ctx().tensor({3, 5});
};

TEST_F(BadInput, ShapesRanksAndDtypes) {
  Tensor wrong = ctx().tensor({5, 3});
  expectInvalid([&] { softmax(ctx(), x, wrong); }, "y", "expected [3, 5]");
  Tensor half = ctx().tensor({3, 5}, DType::F16);
  expectInvalid([&] { softmax(ctx(), x, half); }, "y", "f16");
  Tensor ints = Tensor::fromHostInt(ctx().device(), {3, 5}, std::vector<int32_t>(15, 1));
  expectInvalid([&] { softmax(ctx(), ints, ints); }, "x", "dtype i32");
  Tensor rank5 = ctx().tensor({1, 1, 1, 3, 5});
  expectInvalid([&] { softmax(ctx(), rank5, rank5); }, "x", "rank 5");
  expectInvalid([&] { softmax(ctx(), TensorView{}, y); }, "x", "no tensor");
  expectInvalid([&] { layerNorm(ctx(), x, {.weight = ctx().tensor({4}).view()}); }, "weight", "expected [5]");
  expectInvalid([&] { layerNorm(ctx(), x, {.bias = ctx().tensor({5}, DType::F16).view()}); }, "bias", "dtype");
  expectInvalid([&] { rmsNorm(ctx(), x, {.eps = -1.0f}); }, "eps", ">= 0");
  expectInvalid([&] { softmax(ctx(), x, {.scale = std::numeric_limits<float>::infinity()}); }, "scale", "finite");
}

TEST_F(BadInput, EmptyTensorsAndStridedRowInputs) {
  EXPECT_THROW(ctx().tensor({3, 0}), InvalidArgument);
  TensorView empty = x.view();
  empty.shape = {0, 5};
  expectInvalid([&] { softmax(ctx(), empty, y); }, "x", "empty");
  expectInvalid([&] { softmax(ctx(), x.view().permuted({1, 0}), y); }, "x", "contiguous");
  TensorView overrun = x.view();
  overrun.shape = {4, 5};
  expectInvalid([&] { softmax(ctx(), overrun, overrun); }, "x", "past the end");
}

TEST_F(BadInput, SoftmaxMaskMustBroadcast) {
  expectInvalid([&] { softmax(ctx(), x, {.mask = ctx().tensor({3, 4}).view()}); }, "mask", "last dim");
  expectInvalid([&] { softmax(ctx(), x, {.mask = ctx().tensor({2, 5}).view()}); }, "mask", "broadcast");
  expectInvalid([&] { softmax(ctx(), x, {.mask = ctx().tensor({3, 5}, DType::F16).view()}); }, "mask", "dtype");
}

TEST_F(BadInput, RopeArguments) {
  Tensor q = ctx().tensor({1, 2, 3, 8}, randomValues(48, 2));
  expectInvalid([&] { rope(ctx(), x); }, "x", "rank 2");
  Tensor odd = ctx().tensor({1, 1, 2, 7});
  expectInvalid([&] { rope(ctx(), odd); }, "x", "must be even");
  expectInvalid([&] { rope(ctx(), q, {.rotaryDim = 10}); }, "rotaryDim", "head dim 8");
  expectInvalid([&] { rope(ctx(), q, {.rotaryDim = 3}); }, "rotaryDim", "even");
  expectInvalid([&] { rope(ctx(), q, {.theta = 0.5}); }, "theta", "> 1");
  Tensor pos = Tensor::fromHostInt(ctx().device(), {4}, std::vector<int32_t>{0, 1, 2, 3});
  expectInvalid([&] { rope(ctx(), q, {.positions = pos.view()}); }, "positions", "expected [3] or [1, 3]");
  Tensor fpos = ctx().tensor({3});
  expectInvalid([&] { rope(ctx(), q, {.positions = fpos.view()}); }, "positions", "dtype f32");
  Tensor k = ctx().tensor({1, 1, 4, 8});
  expectInvalid([&] { ropeQK(ctx(), q, q, k, k); }, "k", "must match q");
}

TEST_F(BadInput, NaNInputsAreReportedByName) {
  auto values = randomValues(15, 3);
  values[7] = std::numeric_limits<float>::quiet_NaN();
  Tensor bad = ctx().tensor({3, 5}, values);
  expectInvalid([&] { softmax(ctx(), bad, y); }, "x", "NaN");
  expectInvalid([&] { softmax(ctx(), x, {.mask = bad.view()}); }, "mask", "NaN");
  expectInvalid([&] { layerNorm(ctx(), bad, y); }, "x", "NaN");
  Tensor badWeight = ctx().tensor({5}, std::vector<float>{1, 1, NAN, 1, 1});
  expectInvalid([&] { rmsNorm(ctx(), x, {.weight = badWeight.view()}); }, "weight", "NaN");
  expectInvalid([&] { rmsNorm(ctx(), x, {.residual = bad.view()}); }, "residual", "NaN");
  expectInvalid([&] { rmsNorm(ctx(), x, {.residual = badWeight.view()}); }, "residual", "shape");
  expectInvalid([&] { layerNorm(ctx(), x, {.bias = badWeight.view()}); }, "bias", "NaN");
  Tensor badQ = ctx().tensor({1, 1, 1, 4}, std::vector<float>{0, NAN, 0, 0});
  expectInvalid([&] { rope(ctx(), badQ); }, "x", "NaN");
  // -inf is a legitimate mask value, not an error; and the context still works.
  Tensor inf = ctx().tensor({3, 5}, std::vector<float>(15, -std::numeric_limits<float>::infinity()));
  EXPECT_NO_THROW(softmax(ctx(), x, y, {.mask = inf.view()}));
  for (float v : y.download()) EXPECT_EQ(v, 0.0f);
}

TEST_F(BadInput, NaNInsideABatchIsReportedAtSubmit) {
  Tensor bad = ctx().tensor({3, 5}, std::vector<float>(15, NAN));
  Batch batch(ctx());
  softmax(ctx(), x, y);
  rmsNorm(ctx(), bad, y);
  expectInvalid([&] { batch.submit(); }, "x", "rms_norm");
}

}  // namespace
}  // namespace vkattn::test
