#include "vkattn/io/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>

#include "vkattn/core/error.hpp"
#include "vkattn/core/half.hpp"

namespace vkattn {
namespace {

// The reference implementation refuses headers past 100 MB; so do we, before allocating one.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// Element counts and byte sizes must fit int64 (Shape, numel) with room to spare.
constexpr uint64_t kMaxBytes = uint64_t{1} << 62;

uint64_t readLe64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

using Json = nlohmann::ordered_json;  // members in file order, for messages that follow the file

// Parses the header with nlohmann's parser, plus two checks it does not make itself: a key may
// appear only once per object, and nesting stops at `maxDepth` so hostile input stays cheap.
Json parseHeader(const std::string& name, const std::string& text, int maxDepth = 64) {
  std::vector<std::vector<std::string>> keys;  // keys seen in each open object
  auto check = [&](int depth, Json::parse_event_t event, Json& value) {
    if (depth > maxDepth)
      throw InvalidArgument(name, "header has nesting deeper than " + std::to_string(maxDepth) + " levels");
    if (event == Json::parse_event_t::object_start) keys.emplace_back();
    if (event == Json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == Json::parse_event_t::key && !keys.empty()) {
      const std::string& key = value.get_ref<const std::string&>();
      if (std::find(keys.back().begin(), keys.back().end(), key) != keys.back().end())
        throw InvalidArgument(name, "header is not valid JSON: duplicate key \"" + key + "\"");
      keys.back().push_back(key);
    }
    return true;
  };
  try {
    return Json::parse(text, check);
  } catch (const Json::exception& e) {
    throw InvalidArgument(name, std::string("header is not valid JSON: ") + e.what());
  }
}

// A non-negative integer that fits 64 bits, written as one (not 1.0, not -1).
std::optional<uint64_t> asUint64(const Json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  return std::nullopt;
}

std::string rangeText(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

}  // namespace

std::size_t safetensorsDtypeSize(const std::string& dtype) noexcept {
  static const std::map<std::string, std::size_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"F8_E8M0", 1},
      {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},     {"U32", 4},
      {"F32", 4},  {"F64", 8}, {"I64", 8}, {"U64", 8},     {"C64", 8}};
  auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path) : m_name(path.string()) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw InvalidArgument(m_name, "cannot open the file: " + ec.message());
  m_file = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*m_file) throw InvalidArgument(m_name, "cannot open the file");
  parse(size);
}

SafetensorsFile SafetensorsFile::fromBytes(std::vector<uint8_t> bytes, std::string name) {
  SafetensorsFile f;
  f.m_name = std::move(name);
  f.m_memory = std::move(bytes);
  f.parse(f.m_memory.size());
  return f;
}

SafetensorsFile::~SafetensorsFile() = default;
SafetensorsFile::SafetensorsFile(SafetensorsFile&&) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&&) noexcept = default;

void SafetensorsFile::readAt(uint64_t offset, void* dst, std::size_t bytes) const {
  if (bytes == 0) return;
  if (!m_file) {
    std::memcpy(dst, m_memory.data() + offset, bytes);
    return;
  }
  m_file->clear();
  m_file->seekg(static_cast<std::streamoff>(offset));
  m_file->read(static_cast<char*>(dst), static_cast<std::streamsize>(bytes));
  if (!*m_file || static_cast<std::size_t>(m_file->gcount()) != bytes)
    throw InvalidArgument(m_name, "read of " + std::to_string(bytes) + " bytes at byte " + std::to_string(offset) +
                                      " failed (was the file changed after it was opened?)");
}

void SafetensorsFile::parse(uint64_t totalBytes) {
  if (totalBytes < 8)
    throw InvalidArgument(m_name,
                          "file of " + std::to_string(totalBytes) + " bytes is too short for the 8-byte header length");
  uint8_t lengthBytes[8];
  readAt(0, lengthBytes, 8);
  const uint64_t headerBytes = readLe64(lengthBytes);
  if (headerBytes > totalBytes - 8)
    throw InvalidArgument(m_name, "header length " + std::to_string(headerBytes) + " reaches past the end of the " +
                                      std::to_string(totalBytes) + "-byte file (truncated or not a safetensors file)");
  if (headerBytes > kMaxHeaderBytes)
    throw InvalidArgument(m_name, "header length " + std::to_string(headerBytes) + " exceeds the 100 MB limit");
  std::string header(static_cast<std::size_t>(headerBytes), '\0');
  readAt(8, header.data(), header.size());
  if (header.empty() || header[0] != '{') throw InvalidArgument(m_name, "header does not start with '{'");
  m_dataStart = 8 + headerBytes;
  const uint64_t dataBytes = totalBytes - m_dataStart;

  const Json root = parseHeader(m_name, header);
  if (!root.is_object()) throw InvalidArgument(m_name, "header is not a JSON object");

  for (const auto& [key, value] : root.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) throw InvalidArgument(m_name, "__metadata__ is not an object");
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string())
          throw InvalidArgument(
              m_name, "__metadata__ value of \"" + mk + "\" is " + std::string(mv.type_name()) + ", expected a string");
        m_metadata[mk] = mv.get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor '" + key + "': ";
    if (!value.is_object()) throw InvalidArgument(m_name, where + "entry is not an object");
    SafetensorsEntry e;
    e.name = key;
    const auto dtype = value.find("dtype"), shape = value.find("shape"), offsets = value.find("data_offsets");
    if (dtype == value.end() || !dtype->is_string()) throw InvalidArgument(m_name, where + "no \"dtype\" string");
    if (shape == value.end() || !shape->is_array()) throw InvalidArgument(m_name, where + "no \"shape\" array");
    if (offsets == value.end() || !offsets->is_array() || offsets->size() != 2)
      throw InvalidArgument(m_name, where + "no \"data_offsets\" array of two integers");
    e.dtype = dtype->get<std::string>();
    const std::size_t elementBytes = safetensorsDtypeSize(e.dtype);
    if (elementBytes == 0) throw InvalidArgument(m_name, where + "unknown dtype '" + e.dtype + "'");
    // Multiply with overflow checks. Zero dims are left out of the product too, so that no
    // shape's element count (elementCount multiplies every dim) can overflow int64.
    uint64_t bytes = elementBytes;
    bool empty = false;
    for (const auto& dim : *shape) {
      const auto d = asUint64(dim);
      if (!d) throw InvalidArgument(m_name, where + "shape holds something other than a non-negative integer");
      if (*d == 0)
        empty = true;
      else if (bytes > kMaxBytes / *d)
        throw InvalidArgument(m_name, where + "shape is too large (its byte size overflows)");
      else
        bytes *= *d;
      e.shape.push_back(static_cast<int64_t>(*d));
    }
    if (empty) bytes = 0;
    const auto begin = asUint64((*offsets)[0]), end = asUint64((*offsets)[1]);
    if (!begin || !end) throw InvalidArgument(m_name, where + "data_offsets are not non-negative integers");
    if (*end < *begin)
      throw InvalidArgument(m_name, where + "data_offsets " + rangeText(*begin, *end) + " run backwards");
    if (*end - *begin != bytes)
      throw InvalidArgument(m_name, where + "data_offsets " + rangeText(*begin, *end) + " span " +
                                        std::to_string(*end - *begin) + " bytes but shape " + toString(e.shape) +
                                        " of " + e.dtype + " needs " + std::to_string(bytes));
    e.offset = *begin;
    e.bytes = bytes;
    m_entries.push_back(std::move(e));
  }

  // The data section must be tiled exactly: no overlaps, no gaps, nothing missing or left over.
  std::stable_sort(m_entries.begin(), m_entries.end(), [](const SafetensorsEntry& a, const SafetensorsEntry& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.bytes < b.bytes;
  });
  uint64_t covered = 0;
  const SafetensorsEntry* previous = nullptr;
  for (const SafetensorsEntry& e : m_entries) {
    const std::string where = "tensor '" + e.name + "': ";
    if (e.offset + e.bytes > dataBytes)
      throw InvalidArgument(m_name, where + "data_offsets " + rangeText(e.offset, e.offset + e.bytes) +
                                        " reach past the " + std::to_string(dataBytes) +
                                        "-byte data section (file truncated?)");
    if (e.offset < covered)
      throw InvalidArgument(m_name, where + "data_offsets " + rangeText(e.offset, e.offset + e.bytes) +
                                        " overlap tensor '" + previous->name + "'");
    if (e.offset > covered)
      throw InvalidArgument(m_name, where + "data bytes " + rangeText(covered, e.offset) + " belong to no tensor");
    covered = e.offset + e.bytes;
    previous = &e;
  }
  if (covered != dataBytes)
    throw InvalidArgument(m_name, "the data section holds " + std::to_string(dataBytes) +
                                      " bytes but the tensors cover " + std::to_string(covered));
  for (std::size_t i = 0; i < m_entries.size(); ++i) m_index[m_entries[i].name] = i;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> out;
  out.reserve(m_entries.size());
  for (const auto& e : m_entries) out.push_back(e.name);
  return out;
}

const SafetensorsEntry& SafetensorsFile::entry(const std::string& tensor) const {
  auto it = m_index.find(tensor);
  if (it == m_index.end()) throw InvalidArgument(tensor, "no tensor of that name in " + m_name);
  return m_entries[it->second];
}

std::vector<uint8_t> SafetensorsFile::readBytes(const std::string& tensor) const {
  const SafetensorsEntry& e = entry(tensor);
  if (e.bytes > std::numeric_limits<std::size_t>::max() / 2)
    throw InvalidArgument(tensor, "too large to read into memory");
  std::vector<uint8_t> bytes(static_cast<std::size_t>(e.bytes));
  readAt(m_dataStart + e.offset, bytes.data(), bytes.size());
  return bytes;
}

std::vector<float> SafetensorsFile::readF32(const std::string& tensor) const {
  const SafetensorsEntry& e = entry(tensor);
  if (e.dtype != "F32" && e.dtype != "F16" && e.dtype != "BF16" && e.dtype != "F64")
    throw InvalidArgument(tensor, "dtype " + e.dtype + " in " + m_name + " is not a float type (F32, F16, BF16, F64)");
  const std::vector<uint8_t> bytes = readBytes(tensor);
  const std::size_t n = static_cast<std::size_t>(e.numel());
  std::vector<float> out(n);
  const uint8_t* p = bytes.data();
  for (std::size_t i = 0; i < n; ++i) {
    if (e.dtype == "F32") {
      std::memcpy(&out[i], p + 4 * i, 4);
    } else if (e.dtype == "F64") {
      double d;
      std::memcpy(&d, p + 8 * i, 8);
      out[i] = static_cast<float>(d);
    } else {
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      // bfloat16 is the top half of a float32.
      out[i] = e.dtype == "F16" ? halfToFloat(h) : std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
    }
  }
  return out;
}

std::vector<int32_t> SafetensorsFile::readI32(const std::string& tensor) const {
  const SafetensorsEntry& e = entry(tensor);
  const std::vector<uint8_t> bytes = readBytes(tensor);
  const std::size_t n = static_cast<std::size_t>(e.numel());
  std::vector<int32_t> out(n);
  const uint8_t* p = bytes.data();
  for (std::size_t i = 0; i < n; ++i) {
    if (e.dtype == "I32") {
      std::memcpy(&out[i], p + 4 * i, 4);
    } else if (e.dtype == "I64") {
      int64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
        throw InvalidArgument(tensor, "value " + std::to_string(v) + " at index " + std::to_string(i) + " in " +
                                          m_name + " does not fit 32 bits");
      out[i] = static_cast<int32_t>(v);
    } else if (e.dtype == "U8") {
      out[i] = p[i];
    } else if (e.dtype == "I8") {
      out[i] = static_cast<int8_t>(p[i]);
    } else if (e.dtype == "I16" || e.dtype == "U16") {
      uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      out[i] = e.dtype == "I16" ? static_cast<int16_t>(v) : static_cast<int32_t>(v);
    } else {
      throw InvalidArgument(tensor, "dtype " + e.dtype + " in " + m_name + " is not an integer type that fits 32 bits");
    }
  }
  return out;
}

Tensor SafetensorsFile::load(Context& ctx, const std::string& tensor) const {
  const SafetensorsEntry& e = entry(tensor);
  DType dtype;
  if (e.dtype == "F32")
    dtype = DType::F32;
  else if (e.dtype == "F16")
    dtype = DType::F16;
  else if (e.dtype == "I32")
    dtype = DType::I32;
  else
    throw InvalidArgument(tensor, "dtype " + e.dtype + " in " + m_name +
                                      " cannot be loaded as a tensor: vkattn tensors hold F32, F16 or I32 (load with "
                                      "a target dtype converts float types; readI32 converts integers)");
  if (e.numel() == 0)
    throw InvalidArgument(tensor, "shape " + toString(e.shape) + " in " + m_name +
                                      " has no elements; vkattn tensors need every dim >= 1");
  const std::vector<uint8_t> bytes = readBytes(tensor);
  Tensor t = ctx.tensor(e.shape, dtype);
  t.uploadBytes(bytes.data(), bytes.size());
  return t;
}

Tensor SafetensorsFile::load(Context& ctx, const std::string& tensor, DType as) const {
  const SafetensorsEntry& e = entry(tensor);
  if (e.numel() == 0)
    throw InvalidArgument(tensor, "shape " + toString(e.shape) + " in " + m_name +
                                      " has no elements; vkattn tensors need every dim >= 1");
  if (as == DType::I32) return Tensor::fromHostInt(ctx.device(), e.shape, readI32(tensor));
  if ((as == DType::F32 && e.dtype == "F32") || (as == DType::F16 && e.dtype == "F16")) return load(ctx, tensor);
  return ctx.tensor(e.shape, readF32(tensor), as);
}

}  // namespace vkattn
