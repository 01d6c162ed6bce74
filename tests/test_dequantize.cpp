// dequantize() against the host's decoder (core/storage_formats' decodeValues, which gguf-py
// cross-checks): every block format, one block to many rows of several blocks, rows that start
// 2 bytes off a 4-byte word, views of rows and of whole blocks of columns, f32 and f16 rows; NaN
// reported and bad arguments named.
#include <cstring>

#include "support/compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/ops/op_row.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using reference::randomValues;
namespace {

constexpr DType kFormats[] = {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K};

// A weight [n, k] in `format`'s blocks, and the floats the host decodes them to.
struct Encoded {
  Tensor tensor;
  std::vector<float> decoded;
};

Encoded encoded(Context& ctx, DType format, int64_t n, int64_t k, uint64_t seed) {
  const std::vector<std::byte> bytes =
      encodeValues(format, randomValues(static_cast<std::size_t>(n * k), seed, -3.0f, 3.0f));
  Encoded w{ctx.tensor({n, k}, format), decodeValues(format, bytes, n * k)};
  w.tensor.uploadBytes(bytes.data(), bytes.size());
  return w;
}

// The rows [r0, r0 + rows) and columns [c0, c0 + cols) of a row-major matrix with `k` columns.
std::vector<float> window(const std::vector<float>& m, int64_t k, int64_t r0, int64_t rows, int64_t c0, int64_t cols) {
  std::vector<float> out;
  for (int64_t r = r0; r < r0 + rows; ++r) out.insert(out.end(), m.begin() + r * k + c0, m.begin() + r * k + c0 + cols);
  return out;
}

::testing::AssertionResult matches(const Tensor& y, const std::vector<float>& decoded) {
  const Tolerance tol = opRow("dequantize").toleranceFor(y.dtype());
  return allClose(y.download(), std::vector<double>(decoded.begin(), decoded.end()), tol.atol, tol.rtol);
}

class Dequantize : public VkattnTest, public ::testing::WithParamInterface<DType> {
 protected:
  DType format() const { return GetParam(); }
  int64_t block() const { return blockElements(format()); }
};

TEST_P(Dequantize, GivesTheHostsFloatsExactlyInF32AndRoundedInF16) {
  for (const auto& [n, blocks] : {std::pair<int64_t, int64_t>{1, 1}, {7, 3}, {33, 5}, {300, 2}}) {
    const int64_t k = blocks * block();
    const Encoded w = encoded(ctx(), format(), n, k, 10 + n + blocks);
    const Tensor f32 = dequantize(ctx(), w.tensor);
    EXPECT_EQ(f32.shape(), (Shape{n, k}));
    EXPECT_EQ(f32.download(), w.decoded) << "N=" << n << " K=" << k;  // exactly
    EXPECT_TRUE(matches(dequantize(ctx(), w.tensor, DType::F16), w.decoded)) << "N=" << n << " K=" << k;
  }
}

TEST_P(Dequantize, ViewsOfRowsAndOfWholeBlocksOfColumns) {
  const int64_t n = 12, k = 3 * block();
  const Encoded w = encoded(ctx(), format(), n, k, 40);
  const TensorView rows = w.tensor.view().sliced(0, 5, 6);
  EXPECT_EQ(dequantize(ctx(), rows).download(), window(w.decoded, k, 5, 6, 0, k));
  const TensorView columns = w.tensor.view().sliced(1, block(), 2 * block());  // rows of one stride, K = 2 blocks
  EXPECT_EQ(dequantize(ctx(), columns).download(), window(w.decoded, k, 0, n, block(), 2 * block()));
  Tensor out = ctx().tensor({n, 2 * block()}, DType::F16);
  dequantize(ctx(), columns, out);
  EXPECT_TRUE(matches(out, window(w.decoded, k, 0, n, block(), 2 * block())));
}

INSTANTIATE_TEST_SUITE_P(Formats, Dequantize, ::testing::ValuesIn(kFormats),
                         [](const auto& info) { return std::string(toString(info.param)); });

TEST_F(VkattnTest, DequantizeReportsNaNDecodedFromTheWeight) {
  const Encoded w = encoded(ctx(), DType::Q8_0, 4, 64, 50);
  std::vector<std::byte> withNan = encodeValues(DType::Q8_0, w.decoded);
  const uint16_t nanScale = 0x7E00;  // f16 NaN as block 5's scale
  std::memcpy(withNan.data() + 5 * blockBytes(DType::Q8_0), &nanScale, sizeof nanScale);
  Tensor bad = ctx().tensor({4, 64}, DType::Q8_0);
  bad.uploadBytes(withNan.data(), withNan.size());
  EXPECT_EQ(invalidArgumentOf([&] { dequantize(ctx(), bad); }), "weight");
  EXPECT_EQ(dequantize(ctx(), w.tensor).download(), w.decoded);  // the next call is clean
}

TEST_F(VkattnTest, DequantizeNamesBadArguments) {
  const Encoded w = encoded(ctx(), DType::Q4_K, 2, 256, 60);
  Tensor f32 = ctx().tensor({2, 256}, DType::F32);
  EXPECT_EQ(invalidArgumentOf([&] { dequantize(ctx(), f32); }), "weight");                // not a block format
  EXPECT_EQ(invalidArgumentOf([&] { dequantize(ctx(), w.tensor, DType::I32); }), "out");  // not a float
  Tensor wrongShape = ctx().tensor({2, 255}, DType::F32);
  EXPECT_EQ(invalidArgumentOf([&] { dequantize(ctx(), w.tensor, wrongShape); }), "out");
  Tensor wrongDtype = ctx().tensor({2, 256}, DType::I32);
  EXPECT_EQ(invalidArgumentOf([&] { dequantize(ctx(), w.tensor, wrongDtype); }), "out");
  const TensorView halfBlock = w.tensor.view().sliced(1, 0, 128);  // rows that are not whole blocks
  EXPECT_EQ(invalidArgumentOf([&] { dequantize(ctx(), halfBlock); }), "weight");
}

}  // namespace
}  // namespace vkattn::test
