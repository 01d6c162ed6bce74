#include "vkattn/io/npy.hpp"

#include <cstring>
#include <fstream>
#include <limits>
#include <regex>

#include "vkattn/core/checked_size.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/half.hpp"

namespace vkattn::io {
namespace {

std::size_t itemSize(const std::string& descr) {
  if (descr == "<f2") return 2;
  if (descr == "<f4" || descr == "<i4") return 4;
  if (descr == "<f8" || descr == "<i8") return 8;
  return 0;
}

}  // namespace

NpyArray readNpy(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgument(name, "cannot open the file");
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    throw InvalidArgument(name, "not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  std::size_t headerLength = 0, headerStart = 0;
  if (major == 1) {
    headerLength = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw InvalidArgument(name, "truncated header");
    for (int i = 3; i >= 0; --i) headerLength = (headerLength << 8) | static_cast<unsigned char>(bytes[8 + i]);
    headerStart = 12;
  } else {
    throw InvalidArgument(name, "unsupported .npy version " + std::to_string(major));
  }
  if (headerStart + headerLength > bytes.size()) throw InvalidArgument(name, "truncated header");
  const std::string header(bytes.data() + headerStart, headerLength);

  NpyArray array;
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr':\\s*'([^']*)'")))
    throw InvalidArgument(name, "header has no 'descr'");
  array.descr = m[1];
  if (itemSize(array.descr) == 0)
    throw InvalidArgument(name, "dtype '" + array.descr + "' is not supported (expected <f2, <f4, <f8, <i4 or <i8)");
  if (std::regex_search(header, m, std::regex("'fortran_order':\\s*True")))
    throw InvalidArgument(name, "Fortran-ordered arrays are not supported; save with np.ascontiguousarray");
  if (!std::regex_search(header, m, std::regex("'shape':\\s*\\(([^)]*)\\)")))
    throw InvalidArgument(name, "header has no 'shape'");
  const std::string dims = m[1];
  static const std::regex number("\\d+");
  std::sregex_iterator it(dims.begin(), dims.end(), number), end;
  for (; it != end; ++it) {
    const std::string digits = it->str();
    if (digits.size() > 12) throw InvalidArgument(name, "dimension " + digits + " is too large");
    array.shape.push_back(std::stoll(digits));
  }
  const int64_t count = checkedElementCount(array.shape, name);
  if (count <= 0) throw InvalidArgument(name, "empty array of shape " + toString(array.shape));
  const std::size_t dataBytes = checkedByteCount(array.shape, itemSize(array.descr), name);
  const std::size_t dataStart = headerStart + headerLength;
  if (bytes.size() - dataStart != dataBytes)
    throw InvalidArgument(name, "holds " + std::to_string(bytes.size() - dataStart) + " data bytes, shape " +
                                    toString(array.shape) + " of " + array.descr + " needs " +
                                    std::to_string(dataBytes));
  array.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(dataStart), bytes.end());
  return array;
}

std::vector<float> npyFloats(const NpyArray& a, const std::string& name) {
  const std::size_t n = a.data.size() / itemSize(a.descr);
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const char* p = a.data.data() + i * itemSize(a.descr);
    if (a.descr == "<f4") {
      std::memcpy(&out[i], p, 4);
    } else if (a.descr == "<f8") {
      double d;
      std::memcpy(&d, p, 8);
      out[i] = static_cast<float>(d);
    } else if (a.descr == "<f2") {
      uint16_t h;
      std::memcpy(&h, p, 2);
      out[i] = halfToFloat(h);
    } else {
      throw InvalidArgument(name, "expected a float array, got " + a.descr);
    }
  }
  return out;
}

std::vector<int32_t> npyInts(const NpyArray& a, const std::string& name) {
  const std::size_t n = a.data.size() / itemSize(a.descr);
  std::vector<int32_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const char* p = a.data.data() + i * itemSize(a.descr);
    if (a.descr == "<i4") {
      std::memcpy(&out[i], p, 4);
    } else if (a.descr == "<i8") {
      int64_t v;
      std::memcpy(&v, p, 8);
      if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
        throw InvalidArgument(name, "value " + std::to_string(v) + " does not fit 32 bits");
      out[i] = static_cast<int32_t>(v);
    } else {
      throw InvalidArgument(name, "expected an integer array, got " + a.descr);
    }
  }
  return out;
}

void writeNpy(const std::filesystem::path& path, const Shape& shape, const std::vector<float>& values) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ",";
  if (shape.size() > 1) dims.pop_back();
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InvalidArgument(path.string(), "cannot write the file");
  const uint16_t length = static_cast<uint16_t>(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(length & 0xff));
  out.put(static_cast<char>(length >> 8));
  out << header;
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(float)));
  if (!out) throw InvalidArgument(path.string(), "write failed");
}

}  // namespace vkattn::io
