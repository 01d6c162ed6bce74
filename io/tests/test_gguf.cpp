// The GGUF reader and writer: every metadata type round trips, versions 2 and 3, alignments 32
// and 64, tensors in each stored type, and a clear InvalidArgument (never a crash) for every
// corrupt, truncated or overflowing field.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "vkattn/core/error.hpp"
#include "vkattn/io/ggml_quant.hpp"
#include "vkattn/io/gguf.hpp"
#include "vkattn/io/gguf_writer.hpp"

namespace vkattn {
namespace {

// Bytes of a GGUF file written field by field, for files the writer would refuse to write.
struct RawGguf {
  std::vector<uint8_t> bytes;
  RawGguf& u8(uint8_t v) { return put(v, 1); }
  RawGguf& u32(uint32_t v) { return put(v, 4); }
  RawGguf& u64(uint64_t v) { return put(v, 8); }
  RawGguf& str(const std::string& s) {
    u64(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
    return *this;
  }
  RawGguf& header(uint64_t tensors, uint64_t keys, uint32_t version = 3) {
    bytes = {'G', 'G', 'U', 'F'};
    return u32(version).u64(tensors).u64(keys);
  }
  RawGguf& tensor(const std::string& name, std::vector<uint64_t> dims, uint32_t type, uint64_t offset) {
    str(name).u32(static_cast<uint32_t>(dims.size()));
    for (uint64_t d : dims) u64(d);
    return u32(type).u64(offset);
  }
  RawGguf& padTo(std::size_t alignment) {
    bytes.resize((bytes.size() + alignment - 1) / alignment * alignment, 0);
    return *this;
  }
  RawGguf& zeros(std::size_t n) {
    bytes.resize(bytes.size() + n, 0);
    return *this;
  }

 private:
  RawGguf& put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
};

// Parses `bytes` and expects InvalidArgument whose message holds every fragment.
void expectRejected(const std::vector<uint8_t>& bytes, std::initializer_list<std::string> fragments) {
  try {
    GgufFile::fromBytes(bytes, "bad.gguf");
    ADD_FAILURE() << "accepted; expected an error containing '" << *fragments.begin() << "'";
  } catch (const InvalidArgument& e) {
    for (const std::string& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
  }
}

std::vector<float> ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>(i * 37 % 101) - 50) / 16.0f;
  return v;
}

GgufWriter everyMetadataType(uint32_t alignment = 32) {
  GgufWriter w(alignment);
  w.setMetadata("general.architecture", GgufValue("llama"));
  w.setMetadata("t.u8", GgufValue(uint8_t{200}));
  w.setMetadata("t.i8", GgufValue(int8_t{-100}));
  w.setMetadata("t.u16", GgufValue(uint16_t{60000}));
  w.setMetadata("t.i16", GgufValue(int16_t{-30000}));
  w.setMetadata("t.u32", GgufValue(uint32_t{4000000000u}));
  w.setMetadata("t.i32", GgufValue(int32_t{-2000000000}));
  w.setMetadata("t.f32", GgufValue(0.15625f));
  w.setMetadata("t.bool", GgufValue(true));
  w.setMetadata("t.string", GgufValue(std::string("h\xc3\xa9llo\0x", 8)));  // UTF-8 and an embedded NUL
  w.setMetadata("t.u64", GgufValue(uint64_t{18000000000000000000ull}));
  w.setMetadata("t.i64", GgufValue(int64_t{-9000000000000000000ll}));
  w.setMetadata("t.f64", GgufValue(-2.718281828459045));
  w.setMetadata("t.strings", GgufValue::arrayOf(std::vector<std::string>{"<s>", "", "\xe2\x96\x81the"}));
  w.setMetadata("t.floats", GgufValue::arrayOf(std::vector<float>{0.5f, -1.0f}));
  w.setMetadata("t.empty", GgufValue::arrayOf(std::vector<int32_t>{}));
  GgufArray nested{GgufValueType::Array,
                   {GgufValue::arrayOf(std::vector<int32_t>{1, 2}), GgufValue::arrayOf(std::vector<int32_t>{3})}};
  w.setMetadata("t.nested", GgufValue(nested));
  return w;
}

TEST(GgmlTypes, StorageFormatsAreTheTypesVkattnComputesWith) {
  EXPECT_EQ(ggmlStorageFormatTypeNames(), "F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K");
  EXPECT_EQ(ggmlStorageFormat(GgmlType::Q4_K), DType::Q4_K);
  EXPECT_EQ(ggmlStorageFormat(GgmlType::BF16), DType::BF16);
  for (GgmlType other : {GgmlType::Q4_1, GgmlType::Q8_1, GgmlType::I32, GgmlType::IQ4_NL, GgmlType::F64}) {
    EXPECT_FALSE(ggmlStorageFormat(other)) << ggmlTypeName(other);
    EXPECT_FALSE(ggmlCanDequantize(other)) << ggmlTypeName(other);
  }
  EXPECT_EQ(ggmlStorageBytes(GgmlType::Q6_K, 512), 2u * 210u);  // ggml's block_q6_K
  EXPECT_EQ(ggmlStorageBytes(GgmlType::Q4_0, 64), 2u * 18u);    // ggml's block_q4_0
}

TEST(Gguf, EveryMetadataTypeRoundTrips) {
  const GgufFile f = GgufFile::fromBytes(everyMetadataType().bytes(), "meta.gguf");
  const GgufMetadata& m = f.metadata();
  EXPECT_EQ(f.version(), 3u);
  EXPECT_EQ(m.size(), 17u);
  EXPECT_EQ(m.entries()[0].first, "general.architecture");
  EXPECT_EQ(m.getString("general.architecture"), "llama");
  EXPECT_EQ(m.getU8("t.u8"), 200);
  EXPECT_EQ(m.getI8("t.i8"), -100);
  EXPECT_EQ(m.getU16("t.u16"), 60000);
  EXPECT_EQ(m.getI16("t.i16"), -30000);
  EXPECT_EQ(m.getU32("t.u32"), 4000000000u);
  EXPECT_EQ(m.getI32("t.i32"), -2000000000);
  EXPECT_EQ(m.getF32("t.f32"), 0.15625f);
  EXPECT_TRUE(m.getBool("t.bool"));
  EXPECT_EQ(m.getString("t.string"), std::string("h\xc3\xa9llo\0x", 8));
  EXPECT_EQ(m.getU64("t.u64"), 18000000000000000000ull);
  EXPECT_EQ(m.getI64("t.i64"), -9000000000000000000ll);
  EXPECT_EQ(m.getF64("t.f64"), -2.718281828459045);
  EXPECT_EQ(m.getArrayOf<std::string>("t.strings"), (std::vector<std::string>{"<s>", "", "\xe2\x96\x81the"}));
  EXPECT_EQ(m.getArrayOf<float>("t.floats"), (std::vector<float>{0.5f, -1.0f}));
  EXPECT_EQ(m.getArray("t.empty").elementType, GgufValueType::Int32);
  EXPECT_TRUE(m.getArray("t.empty").items.empty());
  const GgufArray& nested = m.getArray("t.nested");
  ASSERT_EQ(nested.elementType, GgufValueType::Array);
  ASSERT_EQ(nested.items.size(), 2u);
  EXPECT_EQ(nested.items[0], GgufValue::arrayOf(std::vector<int32_t>{1, 2}));
  EXPECT_EQ(m.getInteger("t.u32"), 4000000000ll);
  EXPECT_EQ(m.getInteger("t.i8"), -100);
  EXPECT_TRUE(f.tensors().empty());
}

TEST(Gguf, GettersNameTheKeyAndBothTypes) {
  const GgufFile f = GgufFile::fromBytes(everyMetadataType().bytes(), "meta.gguf");
  try {
    f.metadata().getString("t.u32");
    ADD_FAILURE();
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "t.u32");
    EXPECT_NE(e.problem().find("is UINT32, expected STRING"), std::string::npos) << e.what();
    EXPECT_NE(e.problem().find("meta.gguf"), std::string::npos) << e.what();
  }
  try {
    f.metadata().getU32("llama.block_count");
    ADD_FAILURE();
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "llama.block_count");
    EXPECT_NE(e.problem().find("no such metadata key in meta.gguf"), std::string::npos) << e.what();
  }
  try {
    f.metadata().getArrayOf<int32_t>("t.strings");
    ADD_FAILURE();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(e.problem().find("ARRAY of STRING, expected an ARRAY of INT32"), std::string::npos) << e.what();
  }
  EXPECT_THROW(f.metadata().getInteger("t.u64"), InvalidArgument);  // past int64
  EXPECT_THROW(f.metadata().getInteger("t.f32"), InvalidArgument);
  EXPECT_THROW(f.tensor("missing.weight"), InvalidArgument);
}

TEST(Gguf, TensorsInEachStoredType) {
  for (uint32_t alignment : {32u, 64u}) {
    GgufWriter w(alignment);
    w.setMetadata("general.name", GgufValue("tiny"));
    const std::vector<float> x = ramp(2 * 64);
    w.addTensor("f32", {2, 64}, x);
    w.addTensor("f16", {2, 64}, x, GgmlType::F16);
    w.addTensor("bf16", {128}, x, GgmlType::BF16);
    w.addTensor("q8_0", {4, 32}, x, GgmlType::Q8_0);
    w.addTensor("q4_0", {1, 2, 2, 32}, x, GgmlType::Q4_0);
    w.addRawTensor("q4_1", {32}, GgmlType::Q4_1, std::vector<uint8_t>(20, 0x11));
    w.addTensor("scalar", {}, std::vector<float>{7.5f});
    const GgufFile f = GgufFile::fromBytes(w.bytes(), "tensors.gguf");
    EXPECT_EQ(f.alignment(), alignment);
    EXPECT_EQ(f.dataStart() % alignment, 0u);
    if (alignment == 64)
      EXPECT_EQ(f.metadata().getU32("general.alignment"), 64u);
    else
      EXPECT_FALSE(f.metadata().contains("general.alignment"));
    ASSERT_EQ(f.tensors().size(), 7u);
    for (const GgufTensorInfo& t : f.tensors()) EXPECT_EQ(t.offset % alignment, 0u) << t.name;

    const GgufTensorInfo& q4 = f.tensor("q4_0");
    EXPECT_EQ(q4.dims, (std::vector<uint64_t>{32, 2, 2, 1}));
    EXPECT_EQ(q4.rowMajorShape(), (std::vector<int64_t>{1, 2, 2, 32}));
    EXPECT_EQ(q4.elements, 128u);
    EXPECT_EQ(q4.bytes, 4u * 18);
    EXPECT_EQ(f.tensorBytes("q8_0").size(), 4u * 34);
    EXPECT_EQ(f.dequantize("f32"), x);
    for (GgmlType type : {GgmlType::F16, GgmlType::BF16, GgmlType::Q8_0, GgmlType::Q4_0}) {
      const std::string name = type == GgmlType::F16    ? "f16"
                               : type == GgmlType::BF16 ? "bf16"
                               : type == GgmlType::Q8_0 ? "q8_0"
                                                        : "q4_0";
      EXPECT_EQ(f.tensor(name).type, type);
      EXPECT_EQ(f.dequantize(name), dequantizeGgml(type, quantizeGgml(type, x), x.size())) << name;
    }
    EXPECT_EQ(f.dequantize("scalar"), std::vector<float>{7.5f});
    EXPECT_EQ(f.tensorBytes("q4_1").size(), 20u);
    EXPECT_EQ(f.tensorBytes("q4_1")[0], 0x11);
    try {
      f.dequantize("q4_1");
      ADD_FAILURE() << "Q4_1 dequantized";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("'q4_1'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("Q4_1"), std::string::npos) << e.what();
    }
  }
}

TEST(Gguf, ReadsVersion2) {
  GgufWriter w;
  w.setMetadata("general.architecture", GgufValue("llama"));
  w.addTensor("w", {32}, ramp(32), GgmlType::Q8_0);
  std::vector<uint8_t> bytes = w.bytes();
  bytes[4] = 2;  // versions 2 and 3 share the layout (3 allows big-endian files, which we refuse)
  const GgufFile f = GgufFile::fromBytes(bytes);
  EXPECT_EQ(f.version(), 2u);
  EXPECT_EQ(f.metadata().getString("general.architecture"), "llama");
  EXPECT_EQ(f.dequantize("w").size(), 32u);
}

TEST(Gguf, ReadsFromAFileOnDisk) {
  const auto path = std::filesystem::temp_directory_path() / ("vkattn-gguf-" + std::to_string(::getpid()) + ".gguf");
  GgufWriter w(64);
  w.setMetadata("general.architecture", GgufValue("llama"));
  w.addTensor("blk.0.attn_q.weight", {3, 32}, ramp(96), GgmlType::Q4_0);
  w.write(path);
  {
    const GgufFile f(path);
    EXPECT_EQ(f.name(), path.string());
    EXPECT_EQ(f.metadata().getString("general.architecture"), "llama");
    EXPECT_EQ(f.dequantize("blk.0.attn_q.weight"),
              dequantizeGgml(GgmlType::Q4_0, quantizeGgml(GgmlType::Q4_0, ramp(96)), 96));
  }
  std::filesystem::resize_file(path, 0);
  expectRejected({}, {"bad.gguf", "magic"});
  EXPECT_THROW(GgufFile{path}, InvalidArgument);
  std::filesystem::remove(path);
  EXPECT_THROW(GgufFile{path}, InvalidArgument);
  EXPECT_THROW(GgufFile{std::filesystem::temp_directory_path()}, InvalidArgument);
}

TEST(Gguf, EveryTruncationIsAnError) {
  GgufWriter w(64);
  w.setMetadata("general.architecture", GgufValue("llama"));
  w.setMetadata("tokens", GgufValue::arrayOf(std::vector<std::string>{"a", "bc"}));
  w.setMetadata("nested", GgufValue(GgufArray{GgufValueType::Array, {GgufValue::arrayOf(std::vector<uint16_t>{7})}}));
  w.addTensor("q", {32}, ramp(32), GgmlType::Q8_0);
  w.addTensor("last", {16}, ramp(16));  // 64 bytes: ends exactly at the alignment, so no padding follows
  const std::vector<uint8_t> full = w.bytes();
  ASSERT_NO_THROW(GgufFile::fromBytes(full));
  for (std::size_t n = 0; n < full.size(); ++n) {
    try {
      GgufFile::fromBytes(std::vector<uint8_t>(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)), "cut");
      ADD_FAILURE() << "a file cut to " << n << " of " << full.size() << " bytes was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(e.argument(), "cut");
    }
  }
}

TEST(Gguf, RandomByteChangesNeverCrash) {
  GgufWriter w;
  w.setMetadata("general.architecture", GgufValue("llama"));
  w.setMetadata("tokens", GgufValue::arrayOf(std::vector<std::string>{"a", "bc"}));
  w.addTensor("q4", {64}, ramp(64), GgmlType::Q4_0);
  w.addTensor("f16", {2, 8}, ramp(16), GgmlType::F16);
  const std::vector<uint8_t> full = w.bytes();
  std::mt19937 rng(7);
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bytes = full;
    const int changes = 1 + static_cast<int>(rng() % 4);
    for (int c = 0; c < changes; ++c) bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
    try {
      const GgufFile f = GgufFile::fromBytes(bytes);
      for (const GgufTensorInfo& t : f.tensors()) {
        EXPECT_EQ(f.tensorBytes(t.name).size(), t.bytes);
        try {
          EXPECT_EQ(f.dequantize(t.name).size(), t.elements);
        } catch (const Unsupported&) {
        }
      }
    } catch (const InvalidArgument&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST(Gguf, RejectsBadHeaders) {
  expectRejected(RawGguf().u32(0x46554747).bytes, {"bad.gguf", "version"});
  expectRejected({'G', 'G', 'U', 'X', 3, 0, 0, 0}, {"not a GGUF file"});
  expectRejected(RawGguf().header(0, 0, 1).bytes, {"version 1"});
  expectRejected(RawGguf().header(0, 0, 4).bytes, {"version 4"});
  expectRejected(RawGguf().header(0, 0, 0x03000000).bytes, {"big-endian"});
  expectRejected(RawGguf().header(0, 0xffffffffffffffffull).bytes, {"metadata count 18446744073709551615"});
  expectRejected(RawGguf().header(0xffffffffffffffffull, 0).bytes, {"tensor count 18446744073709551615"});
  expectRejected(RawGguf().header(1u << 20, 0).zeros(100).bytes, {"tensor count 1048576"});
}

TEST(Gguf, RejectsBadMetadata) {
  expectRejected(RawGguf().header(0, 1).u64(1000).zeros(8).bytes,
                 {"metadata entry 0", "metadata key", "needs 1000 bytes"});
  expectRejected(RawGguf().header(0, 1).str("k").u32(13).u8(0).bytes, {"metadata 'k'", "value type 13"});
  expectRejected(RawGguf().header(0, 1).str("k").u32(8).u64(0xffffffffffffff00ull).bytes,
                 {"metadata 'k'", "STRING value", "needs 18446744073709551360 bytes"});
  expectRejected(RawGguf().header(0, 1).str("k").u32(9).u32(4).u64(0x4000000000000001ull).zeros(16).bytes,
                 {"metadata 'k'", "ARRAY of 4611686018427387905 UINT32"});
  expectRejected(RawGguf().header(0, 1).str("k").u32(9).u32(8).u64(1000).zeros(100).bytes, {"ARRAY of 1000 STRING"});
  expectRejected(RawGguf().header(0, 1).str("k").u32(9).u32(99).u64(0).bytes, {"array element type 99"});
  expectRejected(RawGguf().header(0, 1).str("k").u32(7).u8(2).bytes, {"metadata 'k'", "BOOL value 2"});
  expectRejected(RawGguf().header(0, 2).str("k").u32(0).u8(1).str("k").u32(0).u8(2).bytes, {"'k'", "twice"});
  RawGguf deep;
  deep.header(0, 1).str("deep").u32(9);
  for (int level = 0; level < 40; ++level) deep.u32(9).u64(1);
  deep.u32(0).u64(0);
  expectRejected(deep.bytes, {"metadata 'deep'", "nest deeper"});
}

TEST(Gguf, RejectsBadAlignment) {
  for (uint32_t bad : {0u, 48u}) {
    const auto bytes = RawGguf().header(0, 1).str("general.alignment").u32(4).u32(bad).bytes;
    expectRejected(bytes, {"general.alignment", "nonzero power of two"});
  }
  expectRejected(RawGguf().header(0, 1).str("general.alignment").u32(10).u64(32).bytes,
                 {"general.alignment", "is UINT64", "expected UINT32"});
  EXPECT_THROW(GgufWriter(24), InvalidArgument);
}

TEST(Gguf, RejectsBadTensors) {
  auto one = [](std::vector<uint64_t> dims, uint32_t type, uint64_t offset, std::size_t dataBytes) {
    RawGguf r;
    r.header(1, 0).tensor("blk.0.attn_q.weight", std::move(dims), type, offset).padTo(32).zeros(dataBytes);
    return r.bytes;
  };
  EXPECT_NO_THROW(GgufFile::fromBytes(one({8, 2}, 0, 0, 64)));
  expectRejected(one({8, 2}, 0, 0, 63),
                 {"tensor 'blk.0.attn_q.weight'", "data at offset 0 (64 bytes", "past the end of the file"});
  expectRejected(one({8, 2}, 0, 0xffffffffffffffe0ull, 64), {"'blk.0.attn_q.weight'", "past the end of the file"});
  expectRejected(one({8, 2}, 0, 16, 64), {"'blk.0.attn_q.weight'", "offset 16 is not a multiple of the alignment 32"});
  expectRejected(one({8, 1, 1, 1, 1}, 0, 0, 32), {"'blk.0.attn_q.weight'", "5 dimensions"});
  expectRejected(one({8}, 99, 0, 32), {"'blk.0.attn_q.weight'", "unknown ggml type id 99"});
  expectRejected(one({8}, 4, 0, 32), {"unknown ggml type id 4"});  // retired Q4_2
  expectRejected(one({1ull << 32, 1ull << 32}, 0, 0, 32), {"'blk.0.attn_q.weight'", "more than 2^63 - 1 elements"});
  expectRejected(one({0, 1ull << 40, 1ull << 40}, 0, 0, 32), {"more than 2^63 - 1 elements"});  // a zero hides nothing
  expectRejected(one({1ull << 40}, 0, 0, 32), {"'blk.0.attn_q.weight'", "past the end of the file"});
  expectRejected(one({1ull << 62}, 28, 0, 32), {"'blk.0.attn_q.weight'", "F64 take more than 2^64 bytes"});
  expectRejected(one({48}, 12, 0, 1000), {"innermost dimension 48", "Q4_K block of 256"});
  expectRejected(RawGguf().header(1, 0).u64(50).zeros(24).bytes, {"tensor name", "needs 50 bytes"});

  RawGguf twice;
  twice.header(2, 0).tensor("w", {8}, 0, 0).tensor("w", {8}, 0, 32).padTo(32).zeros(64);
  expectRejected(twice.bytes, {"tensor 'w' appears twice"});
}

TEST(Gguf, WriterRefusesWhatCannotBeRead) {
  GgufWriter w;
  w.setMetadata("k", GgufValue(1));
  EXPECT_THROW(w.setMetadata("k", GgufValue(2)), InvalidArgument);
  EXPECT_THROW(w.setMetadata("general.alignment", GgufValue(uint32_t{64})), InvalidArgument);
  EXPECT_THROW(w.setMetadata("mixed", GgufValue(GgufArray{GgufValueType::Int32, {GgufValue(1), GgufValue(1.0f)}})),
               InvalidArgument);
  w.addTensor("t", {32}, ramp(32));
  EXPECT_THROW(w.addTensor("t", {32}, ramp(32)), InvalidArgument);
  EXPECT_THROW(w.addTensor("u", {2, 16}, ramp(31)), InvalidArgument);
  EXPECT_THROW(w.addTensor("v", {1, 1, 1, 1, 32}, ramp(32)), InvalidArgument);
  EXPECT_THROW(w.addTensor("x", {2, 16}, ramp(32), GgmlType::Q8_0), InvalidArgument);  // row of 16 in blocks of 32
  EXPECT_THROW(w.addRawTensor("y", {32}, GgmlType::Q4_1, std::vector<uint8_t>(19)), InvalidArgument);
}

}  // namespace
}  // namespace vkattn
