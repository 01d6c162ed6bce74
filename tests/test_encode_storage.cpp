// encodeStorage against the host encoder (core/storage_formats): every format, windows that start
// and end inside 32-bit words (odd element offsets, odd block counts) with the bytes around them
// kept, NaN and overflow refused for the block formats.
#include <cmath>
#include <cstring>

#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/encode_storage.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
namespace {

struct EncodeCase {
  DType dtype;
  int64_t total, offset, count;  // y holds `total` elements; the window is offset .. offset + count
};

class EncodeStorage : public VkattnTest, public ::testing::WithParamInterface<EncodeCase> {};

TEST_P(EncodeStorage, MatchesTheHostEncoderAndKeepsTheBytesAround) {
  const EncodeCase c = GetParam();
  std::vector<float> values = reference::randomValues(c.count, 71 + static_cast<uint32_t>(c.offset));
  for (std::size_t i = 0; i < values.size(); i += 7) values[i] *= 40.0f;  // outliers set block scales
  const std::size_t bytes = storageBytes(c.dtype, c.total);
  std::vector<std::byte> before(bytes);
  for (std::size_t i = 0; i < bytes; ++i) before[i] = static_cast<std::byte>(0xA5 ^ (i * 29));
  Tensor y = ctx().tensor({c.total}, c.dtype);
  y.uploadBytes(before.data(), bytes);
  Tensor x = ctx().tensor({c.count}, values);
  encodeStorage(ctx(), x, y.view().sliced(0, c.offset, c.count));

  std::vector<std::byte> after(bytes);
  y.downloadBytes(after.data(), bytes);
  const std::size_t first = storageBytes(c.dtype, c.offset), length = storageBytes(c.dtype, c.count);
  EXPECT_EQ(std::memcmp(after.data(), before.data(), first), 0) << "bytes before the window changed";
  EXPECT_EQ(std::memcmp(after.data() + first + length, before.data() + first + length, bytes - first - length), 0)
      << "bytes after the window changed";

  const std::vector<float> got = decodeValues(c.dtype, std::span(after).subspan(first, length), c.count);
  const std::vector<std::byte> hostBytes = encodeValues(c.dtype, values);
  const std::vector<float> want = decodeValues(c.dtype, hostBytes, c.count);
  const int64_t block = blockElements(c.dtype);
  double worst = 0;
  for (int64_t i = 0; i < c.count; ++i) {
    // One quantum: the block's scale (its largest magnitude / 127 or / 8), or one f16/bf16 ulp.
    double quantum;
    if (block > 1) {
      double amax = 0;
      for (int64_t j = i / block * block; j < (i / block + 1) * block; ++j)
        amax = std::max(amax, double(std::fabs(values[j])));
      quantum = amax / (c.dtype == DType::Q8_0 ? 127.0 : 8.0) * 1.001;
    } else {
      quantum = std::fabs(want[i]) * (c.dtype == DType::F16 ? 0x1p-10 : 0x1p-7) + 1e-7;
    }
    worst = std::max(worst, std::fabs(got[i] - want[i]) / quantum);
    ASSERT_LE(std::fabs(got[i] - want[i]), quantum) << "element " << i << ": " << got[i] << " vs host " << want[i];
  }
  RecordProperty("worst_error_in_quanta", std::to_string(worst));
}

INSTANTIATE_TEST_SUITE_P(Windows, EncodeStorage,
                         ::testing::Values(EncodeCase{DType::F16, 100, 0, 100}, EncodeCase{DType::F16, 101, 3, 95},
                                           EncodeCase{DType::BF16, 77, 1, 75},
                                           EncodeCase{DType::Q8_0, 32 * 9, 32, 32 * 5},
                                           EncodeCase{DType::Q8_0, 32 * 8, 32 * 3, 32 * 3},
                                           EncodeCase{DType::Q4_0, 32 * 9, 32, 32 * 7},
                                           EncodeCase{DType::Q4_0, 32 * 5, 0, 32}),
                         [](const auto& info) {
                           return std::string(toString(info.param.dtype)) + "_at" + std::to_string(info.param.offset) +
                                  "_n" + std::to_string(info.param.count);
                         });

TEST_F(VkattnTest, EncodeStorageRefusesWhatAFormatCannotHold) {
  std::vector<float> values(64, 1.0f);
  values[40] = NAN;
  Tensor x = ctx().tensor({64}, values);
  Tensor q = ctx().tensor({64}, DType::Q8_0);
  EXPECT_EQ(invalidArgumentOf([&] { encodeStorage(ctx(), x, q); }), "x");
  values[40] = 1e9f;  // 1e9 / 127 overflows the f16 scale
  Tensor big = ctx().tensor({64}, values);
  EXPECT_EQ(invalidArgumentOf([&] { encodeStorage(ctx(), big, ctx().tensor({64}, DType::Q4_0)); }), "x");
  Tensor h = ctx().tensor({64}, DType::F16);
  EXPECT_NO_THROW(encodeStorage(ctx(), big, h));  // f16 stores the overflow as infinity
  EXPECT_TRUE(std::isinf(h.download()[40]));
  EXPECT_EQ(invalidArgumentOf([&] { encodeStorage(ctx(), x, q.view().sliced(0, 16, 32)); }), "y");
  EXPECT_EQ(invalidArgumentOf([&] { encodeStorage(ctx(), x, ctx().tensor({64}, DType::F32)); }), "y");
  EXPECT_EQ(invalidArgumentOf([&] { encodeStorage(ctx(), x, ctx().tensor({32}, DType::F16)); }), "y");
}

}  // namespace
}  // namespace vkattn::test
