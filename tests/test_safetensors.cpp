// The safetensors reader: a hand-built file read back value for value (and loaded onto the
// device), every documented corruption rejected with InvalidArgument naming the file, and
// fuzzing: every truncation and thousands of seeded byte mutations either throw cleanly or give a
// self-consistent file, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/half.hpp"
#include "vkattn/io/safetensors.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

using Bytes = std::vector<uint8_t>;

template <typename T>
void append(Bytes& out, const std::vector<T>& values) {
  const auto* p = reinterpret_cast<const uint8_t*>(values.data());
  out.insert(out.end(), p, p + values.size() * sizeof(T));
}

// A file image: the 8-byte length, `header` padded with spaces to a multiple of 8 (as the
// reference writer does), then `data`.
Bytes image(std::string header, const Bytes& data) {
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>(header.size() >> (8 * i));
  out += header;
  out.append(data.begin(), data.end());
  return Bytes(out.begin(), out.end());
}

const std::vector<float> kW = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -1e-3f};
const std::vector<float> kH = {0.5f, -1.0f, 65504.0f, 1.0f / 1024.0f};
const std::vector<int32_t> kIds = {3, -7, 2147483647};
const std::vector<int64_t> kLong = {-5, 1 << 30};

// Tensors in an order different from the header's, so names() must follow the data.
Bytes validImage() {
  Bytes data;
  append(data, kW);  // w: [0, 24)
  std::vector<uint16_t> h;
  for (float v : kH) h.push_back(floatToHalf(v));
  append(data, h);     // h: [24, 32)
  append(data, kIds);  // ids: [32, 44)
  std::vector<uint16_t> bf = {static_cast<uint16_t>(std::bit_cast<uint32_t>(2.5f) >> 16),
                              static_cast<uint16_t>(std::bit_cast<uint32_t>(-0.125f) >> 16)};
  append(data, bf);                         // bf: [44, 48)
  append(data, std::vector<float>{42.0f});  // scalar: [48, 52)
  append(data, kLong);                      // long: [52, 68)
  const std::string header = R"({"__metadata__":{"format":"pt","note":"caf\u00e9 \"q\""},)"
                             R"("ids":{"dtype":"I32","shape":[3],"data_offsets":[32,44]},)"
                             R"("w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
                             R"("h":{"dtype":"F16","shape":[4],"data_offsets":[24,32]},)"
                             R"("bf":{"dtype":"BF16","shape":[2],"data_offsets":[44,48]},)"
                             R"("empty":{"dtype":"F32","shape":[0,3],"data_offsets":[48,48]},)"
                             R"("scalar":{"dtype":"F32","shape":[],"data_offsets":[48,52]},)"
                             R"("long":{"dtype":"I64","shape":[2],"data_offsets":[52,68]}})";
  return image(header, data);
}

void expectRejected(const Bytes& bytes, const std::string& fragment) {
  try {
    SafetensorsFile::fromBytes(bytes, "bad.safetensors");
    ADD_FAILURE() << "accepted; expected an error containing '" << fragment << "'";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "bad.safetensors");
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

// A tensor entry with the given fields, and a file of `dataBytes` zero bytes around it.
Bytes oneTensor(const std::string& dtype, const std::string& shape, const std::string& offsets, std::size_t dataBytes) {
  return image(R"({"t":{"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":)" + offsets + "}}",
               Bytes(dataBytes, 0));
}

TEST(Safetensors, ReadsEveryFieldOfAValidFile) {
  const auto f = SafetensorsFile::fromBytes(validImage(), "valid.safetensors");
  EXPECT_EQ(f.names(), (std::vector<std::string>{"w", "h", "ids", "bf", "empty", "scalar", "long"}));
  EXPECT_EQ(f.metadata().at("format"), "pt");
  EXPECT_EQ(f.metadata().at("note"), "caf\xc3\xa9 \"q\"");
  EXPECT_EQ(f.entry("w").dtype, "F32");
  EXPECT_EQ(f.entry("w").shape, (Shape{2, 3}));
  EXPECT_EQ(f.entry("scalar").shape, Shape{});
  EXPECT_EQ(f.readF32("w"), kW);
  EXPECT_EQ(f.readF32("h"), kH);
  EXPECT_EQ(f.readF32("bf"), (std::vector<float>{2.5f, -0.125f}));
  EXPECT_EQ(f.readF32("scalar"), std::vector<float>{42.0f});
  EXPECT_TRUE(f.readF32("empty").empty());
  EXPECT_EQ(f.readI32("ids"), kIds);
  EXPECT_EQ(f.readI32("long"), (std::vector<int32_t>{-5, 1 << 30}));
  EXPECT_FALSE(f.contains("nope"));
  try {
    f.entry("nope");
    ADD_FAILURE() << "a missing tensor was found";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "nope");
    EXPECT_NE(std::string(e.what()).find("valid.safetensors"), std::string::npos) << e.what();
  }
  EXPECT_THROW(f.readF32("ids"), InvalidArgument);
  EXPECT_THROW(f.readI32("w"), InvalidArgument);
}

TEST(Safetensors, ReadsFromDiskAndNamesAMissingFile) {
  const auto path =
      std::filesystem::temp_directory_path() / ("vkattn-st-" + std::to_string(::getpid()) + ".safetensors");
  const Bytes bytes = validImage();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  {
    SafetensorsFile f(path);
    EXPECT_EQ(f.name(), path.string());
    EXPECT_EQ(f.readF32("w"), kW);
    EXPECT_EQ(f.readI32("ids"), kIds);
  }
  std::filesystem::remove(path);
  try {
    SafetensorsFile missing(path);
    ADD_FAILURE() << "a missing file opened";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), path.string());
  }
}

TEST(Safetensors, RejectsEachKindOfCorruption) {
  expectRejected(Bytes{1, 2, 3}, "too short");
  {
    Bytes b = validImage();
    b[5] = 1;  // header length ~2^40
    expectRejected(b, "past the end");
  }
  expectRejected(image(R"({"t":{"dtype":"F32",)", {}), "not valid JSON");
  expectRejected(image(R"({"t":1,"t":2})", {}), "duplicate key");
  expectRejected(image(R"([1, 2])", {}), "does not start with '{'");
  expectRejected(image(R"({"__metadata__":{"a":1}})", {}), "expected a string");
  expectRejected(image(std::string("{\"a\":") + std::string(100000, '['), {}), "nesting deeper");
  expectRejected(oneTensor("F32", "[2]", "[0,8]", 4), "reach past");  // truncated data
  expectRejected(oneTensor("F32", "[2]", "[0,12]", 12), "needs 8");
  expectRejected(oneTensor("F32", "[2]", "[8,0]", 8), "backwards");
  expectRejected(oneTensor("Q7", "[2]", "[0,8]", 8), "unknown dtype 'Q7'");
  expectRejected(oneTensor("F32", "[2.5]", "[0,8]", 8), "non-negative integer");
  expectRejected(oneTensor("F32", "[-2]", "[0,8]", 8), "non-negative integer");
  expectRejected(oneTensor("F32", "[4611686018427387904, 4]", "[0,8]", 8), "too large");
  expectRejected(oneTensor("F32", "[99999999999999999999]", "[0,8]", 8), "non-negative integer");
  expectRejected(oneTensor("F32", "[2]", "[0]", 8), "data_offsets");
  expectRejected(oneTensor("F32", "[2]", "[0,8]", 12), "cover 8");               // trailing bytes
  expectRejected(oneTensor("F32", "[2]", "[4,12]", 12), "belong to no tensor");  // a gap
  expectRejected(image(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                       Bytes(12, 0)),
                 "overlap");
  expectRejected(image(R"({"a":{"dtype":"F32","shape":[2]}})", Bytes(8, 0)), "data_offsets");
}

class SafetensorsDevice : public VkattnTest {};

TEST_F(SafetensorsDevice, LoadsF32F16I32AndRefusesOthersClearly) {
  const auto f = SafetensorsFile::fromBytes(validImage(), "valid.safetensors");
  Tensor w = f.load(ctx(), "w");
  EXPECT_EQ(w.dtype(), DType::F32);
  EXPECT_EQ(w.shape(), (Shape{2, 3}));
  EXPECT_EQ(w.download(), kW);
  Tensor h = f.load(ctx(), "h");
  EXPECT_EQ(h.dtype(), DType::F16);
  EXPECT_EQ(h.download(), kH);
  Tensor ids = f.load(ctx(), "ids");
  EXPECT_EQ(ids.dtype(), DType::I32);
  EXPECT_EQ(ids.downloadInt(), kIds);
  EXPECT_EQ(f.load(ctx(), "w", DType::F16).download(), test::roundToHalf(kW));
  EXPECT_EQ(f.load(ctx(), "bf", DType::F32).download(), (std::vector<float>{2.5f, -0.125f}));
  EXPECT_EQ(f.load(ctx(), "long", DType::I32).downloadInt(), (std::vector<int32_t>{-5, 1 << 30}));
  for (const char* name : {"bf", "long"}) {
    try {
      f.load(ctx(), name);
      ADD_FAILURE() << name << " loaded without conversion";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(e.argument(), name);
      EXPECT_NE(std::string(e.what()).find("F32, F16 or I32"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(f.load(ctx(), "empty"), InvalidArgument);
}

TEST(Safetensors, EveryTruncationIsAnErrorNamingTheFile) {
  const Bytes full = validImage();
  for (std::size_t n = 0; n < full.size(); ++n) {
    try {
      SafetensorsFile::fromBytes(Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)), "cut");
      ADD_FAILURE() << "a file cut to " << n << " of " << full.size() << " bytes was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(e.argument(), "cut");
    }
  }
}

// Accepted mutants must be self-consistent: every entry's bytes match its shape and dtype and
// lie inside the data, and reading any of them works.
void checkConsistent(const SafetensorsFile& f, std::size_t fileBytes) {
  uint64_t total = 0;
  for (const SafetensorsEntry& e : f.entries()) {
    ASSERT_EQ(e.bytes, static_cast<uint64_t>(e.numel()) * safetensorsDtypeSize(e.dtype)) << e.name;
    total += e.bytes;
    ASSERT_EQ(f.readBytes(e.name).size(), e.bytes);
    if (e.dtype == "F32" || e.dtype == "F16" || e.dtype == "BF16" || e.dtype == "F64") {
      ASSERT_EQ(f.readF32(e.name).size(), static_cast<std::size_t>(e.numel()));
    }
  }
  ASSERT_LE(total, fileBytes);
}

TEST(Safetensors, RandomMutationsThrowCleanlyOrReadConsistently) {
  const Bytes full = validImage();
  std::mt19937_64 rng(20240611);
  int rejected = 0, accepted = 0;
  for (int trial = 0; trial < 6000; ++trial) {
    Bytes b = full;
    const int kind = static_cast<int>(rng() % 4);
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < edits; ++i) {
      // Mostly the header (where the structure is); sometimes anywhere, inserting or deleting.
      const std::size_t limit = kind == 3 ? b.size() : std::min<std::size_t>(b.size(), 8 + 520);
      const std::size_t at = static_cast<std::size_t>(rng() % limit);
      if (kind == 1 && at < b.size()) {
        b.erase(b.begin() + static_cast<std::ptrdiff_t>(at));
      } else if (kind == 2) {
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), static_cast<uint8_t>(rng()));
      } else if (rng() % 3 == 0) {
        b[at] = static_cast<uint8_t>("{}[]\",:0123456789-eE. "[rng() % 22]);  // structural characters
      } else {
        b[at] = static_cast<uint8_t>(rng());
      }
    }
    try {
      const auto f = SafetensorsFile::fromBytes(b, "mutant");
      checkConsistent(f, b.size());
      ++accepted;
    } catch (const InvalidArgument& e) {
      ASSERT_EQ(e.argument(), "mutant") << e.what();
      ++rejected;
    }
  }
  std::printf("mutants: %d rejected, %d accepted\n", rejected, accepted);
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(accepted, 10) << "mutations of the data bytes keep a valid file";
}

}  // namespace
}  // namespace vkattn::test
