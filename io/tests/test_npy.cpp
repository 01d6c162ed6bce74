// The .npy reader: round trips, and clear errors (never a crash) on corrupt or truncated files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "vkattn/core/error.hpp"
#include "vkattn/io/npy.hpp"

namespace vkattn::io {
namespace {

std::filesystem::path scratch(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("vkattn-npy-" + std::to_string(::getpid()) + "-" + name);
}

std::vector<char> bytesOf(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), {});
}

void writeBytes(const std::filesystem::path& p, const std::vector<char>& bytes) {
  std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(Npy, RoundTripsFloat32) {
  auto path = scratch("roundtrip.npy");
  std::vector<float> values = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -1e-3f};
  writeNpy(path, {2, 3}, values);
  NpyArray a = readNpy(path);
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.shape, (Shape{2, 3}));
  EXPECT_EQ(npyFloats(a, "x"), values);
  EXPECT_EQ(bytesOf(path).size() % 64, 24u) << "header padded to 64 bytes, then 24 data bytes";
  std::filesystem::remove(path);
}

TEST(Npy, EveryTruncationIsAnErrorNamingTheFile) {
  auto path = scratch("full.npy");
  writeNpy(path, {4, 5}, std::vector<float>(20, 1.0f));
  const auto full = bytesOf(path);
  auto cut = scratch("cut.npy");
  for (std::size_t n = 0; n < full.size(); ++n) {
    writeBytes(cut, std::vector<char>(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)));
    try {
      readNpy(cut);
      ADD_FAILURE() << "a file cut to " << n << " bytes was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(e.argument(), cut.string());
    }
  }
  std::filesystem::remove(path);
  std::filesystem::remove(cut);
}

TEST(Npy, RandomByteFlipsNeverCrash) {
  auto path = scratch("flip.npy");
  writeNpy(path, {3, 7}, std::vector<float>(21, 2.0f));
  const auto full = bytesOf(path);
  std::mt19937 rng(3);
  int rejected = 0;
  for (int trial = 0; trial < 500; ++trial) {
    auto bytes = full;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % 128] = static_cast<char>(rng());  // header region
    writeBytes(path, bytes);
    try {
      NpyArray a = readNpy(path);
      // Accepted only if it is self-consistent.
      EXPECT_EQ(a.data.size(),
                static_cast<std::size_t>(elementCount(a.shape)) * (a.descr == "<f2"                       ? 2
                                                                   : a.descr == "<f8" || a.descr == "<i8" ? 8
                                                                                                          : 4));
    } catch (const InvalidArgument&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0);
  std::filesystem::remove(path);
}

TEST(Npy, RejectsUnsupportedContent) {
  auto path = scratch("bad.npy");
  auto write = [&](const std::string& header, std::size_t dataBytes) {
    std::string h = header;
    h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
    h += '\n';
    std::string file("\x93NUMPY\x01\x00", 8);
    file += static_cast<char>(h.size() & 0xff);
    file += static_cast<char>(h.size() >> 8);
    file += h;
    file.append(dataBytes, '\0');
    std::vector<char> bytes(file.begin(), file.end());
    writeBytes(path, bytes);
  };
  auto expectError = [&](const std::string& fragment) {
    try {
      readNpy(path);
      ADD_FAILURE() << "accepted; expected an error containing '" << fragment << "'";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  write("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16);
  expectError("not supported");
  write("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16);
  expectError("Fortran");
  write("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 12);
  expectError("needs 16");
  write("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 2), }", 0);
  expectError("empty");
  write("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999,), }", 4);
  expectError("too large");
  writeBytes(path, {'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0, 0});
  expectError("bad magic");
  EXPECT_THROW(readNpy(scratch("missing.npy")), InvalidArgument);
  write("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", 0);
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    int64_t big = int64_t{1} << 40;
    out.write(reinterpret_cast<const char*>(&big), 8);
  }
  EXPECT_THROW(npyInts(readNpy(path), "positions"), InvalidArgument);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace vkattn::io
