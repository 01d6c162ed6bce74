// Reading .safetensors files (https://github.com/huggingface/safetensors): an 8-byte little-endian
// header length, a JSON header mapping tensor names to dtype, shape and byte range, then the raw
// little-endian data. The whole header is validated on open: ranges in bounds, matching
// shape x dtype, neither overlapping nor leaving gaps, covering the data exactly; so a corrupt
// or truncated file fails at once with InvalidArgument naming the file and the problem, never
// later or with a crash. Tensor data is read on demand (from the file, or from the bytes given).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn {

struct SafetensorsEntry {
  std::string name;
  std::string dtype;    // as in the file: "F32", "F16", "BF16", "I32", "I64", "U8", ...
  Shape shape;          // may be empty (a scalar) or hold zeros (no elements)
  uint64_t offset = 0;  // byte offset into the data section
  uint64_t bytes = 0;
  int64_t numel() const noexcept { return elementCount(shape); }
};

// Byte size of a safetensors dtype name, or 0 for a name the format does not define.
std::size_t safetensorsDtypeSize(const std::string& dtype) noexcept;

class SafetensorsFile {
 public:
  explicit SafetensorsFile(const std::filesystem::path& path);
  // A file image already in memory; `name` stands for the file in error messages.
  static SafetensorsFile fromBytes(std::vector<uint8_t> bytes, std::string name = "<memory>");
  ~SafetensorsFile();
  SafetensorsFile(SafetensorsFile&&) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept;

  const std::string& name() const noexcept { return m_name; }
  // Tensor names in data order (the order they lie in the file).
  std::vector<std::string> names() const;
  bool contains(const std::string& tensor) const { return m_index.count(tensor) != 0; }
  // Throws InvalidArgument(tensor, ...) when the file has no such tensor.
  const SafetensorsEntry& entry(const std::string& tensor) const;
  const std::vector<SafetensorsEntry>& entries() const noexcept { return m_entries; }
  // The header's "__metadata__" (string to string), empty when absent.
  const std::map<std::string, std::string>& metadata() const noexcept { return m_metadata; }

  // The raw little-endian bytes of one tensor.
  std::vector<uint8_t> readBytes(const std::string& tensor) const;
  // Values converted to float: F32, F16, BF16, F64 (others throw InvalidArgument).
  std::vector<float> readF32(const std::string& tensor) const;
  // I32, or I64 / U8 / I8 / I16 / U16 values that fit 32 bits (others throw InvalidArgument).
  std::vector<int32_t> readI32(const std::string& tensor) const;
  // A device tensor of the file's dtype: F32, F16 or I32 (other dtypes and empty tensors throw
  // InvalidArgument; use the overload below to convert BF16 / F64).
  Tensor load(Context& ctx, const std::string& tensor) const;
  // A float tensor (F32 or F16) from any float dtype of the file, converted on the host.
  Tensor load(Context& ctx, const std::string& tensor, DType as) const;

 private:
  SafetensorsFile() = default;
  void parse(uint64_t totalBytes);
  void readAt(uint64_t offset, void* dst, std::size_t bytes) const;

  std::string m_name;
  std::vector<uint8_t> m_memory;          // the image, for fromBytes
  std::unique_ptr<std::ifstream> m_file;  // the open file otherwise
  uint64_t m_dataStart = 0;
  std::vector<SafetensorsEntry> m_entries;     // in data order
  std::map<std::string, std::size_t> m_index;  // name -> position in m_entries
  std::map<std::string, std::string> m_metadata;
};

}  // namespace vkattn
