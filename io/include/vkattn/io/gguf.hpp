// Reading GGUF files (llama.cpp's model format), versions 2 and 3, little-endian: the metadata
// table, the tensor directory and each tensor's raw bytes, and dequantization of those bytes to
// float (ggml_types.hpp lists the types, ggml_quant.hpp decodes them). A file is memory-mapped and checked whole on
// open: every count, length, type, dimension, alignment and data range is checked against the bytes that are really
// there, so a corrupt or truncated file fails at once with InvalidArgument naming the file and the field, never later,
// never with a read out of bounds, and never with an allocation sized by a count the file only claims.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vkattn/io/ggml_types.hpp"
#include "vkattn/io/gguf_value.hpp"

namespace vkattn {

// ggml's GGML_MAX_DIMS.
inline constexpr uint32_t kGgufMaxDims = 4;
// The data alignment of a file without general.alignment.
inline constexpr uint32_t kGgufDefaultAlignment = 32;

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // ggml order: dims[0] is the innermost, contiguous dimension
  GgmlType type = GgmlType::F32;
  uint64_t offset = 0;  // from the start of the data section; a multiple of the alignment
  uint64_t elements = 0;
  uint64_t bytes = 0;
  // Dimensions outermost first (the order of vkattn's Shape and NumPy): dims reversed.
  std::vector<int64_t> rowMajorShape() const;
};

class GgufFile {
 public:
  // Memory-maps the file (read-only) for as long as this object lives; the file must not be
  // truncated meanwhile (reading the mapping past the new end would fault).
  explicit GgufFile(const std::filesystem::path& path);
  // A file image already in memory; `name` stands for the file in error messages.
  static GgufFile fromBytes(std::vector<uint8_t> bytes, std::string name = "<memory>");
  ~GgufFile();
  GgufFile(GgufFile&&) noexcept;
  GgufFile& operator=(GgufFile&&) noexcept;

  const std::string& name() const noexcept { return m_name; }
  uint32_t version() const noexcept { return m_version; }
  uint32_t alignment() const noexcept { return m_alignment; }
  // Where the data section starts in the file.
  uint64_t dataStart() const noexcept { return m_dataStart; }
  const GgufMetadata& metadata() const noexcept { return m_metadata; }

  // In file order.
  const std::vector<GgufTensorInfo>& tensors() const noexcept { return m_tensors; }
  bool contains(const std::string& tensor) const { return m_index.count(tensor) != 0; }
  // Throws InvalidArgument(tensor, ...) when the file has no such tensor.
  const GgufTensorInfo& tensor(const std::string& name) const;
  // The tensor's bytes as stored (blocks for quantized types); valid while this object lives.
  std::span<const uint8_t> tensorBytes(const std::string& name) const;
  // The values as float (Unsupported naming the tensor and its type when the type does not
  // dequantize).
  std::vector<float> dequantize(const std::string& name) const;

 private:
  class Image;
  GgufFile() = default;
  void parse();

  std::string m_name;
  std::unique_ptr<Image> m_image;
  uint32_t m_version = 0;
  uint32_t m_alignment = kGgufDefaultAlignment;
  uint64_t m_dataStart = 0;
  GgufMetadata m_metadata;
  std::vector<GgufTensorInfo> m_tensors;
  std::map<std::string, std::size_t, std::less<>> m_index;  // name -> position in m_tensors
};

}  // namespace vkattn
