// Writing GGUF version 3 files, laid out as llama.cpp writes them: header, metadata in the order
// it was set, tensor directory, then the data section at the alignment with every tensor padded
// to it. Tensors are given as floats and stored as F32, F16, BF16, Q8_0 or Q4_0 (quantized by
// ggml_quant.hpp), or as bytes already in any ggml type's layout. Everything is checked as it is
// added (InvalidArgument naming the key or tensor), so what is written always reads back.
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "vkattn/io/ggml_types.hpp"
#include "vkattn/io/gguf.hpp"
#include "vkattn/io/gguf_value.hpp"

namespace vkattn {

class GgufWriter {
 public:
  // A nonzero power of two; any other than 32 is recorded as general.alignment (UINT32).
  explicit GgufWriter(uint32_t alignment = kGgufDefaultAlignment);

  // Array values must hold items of their element type only. general.alignment is set by the constructor.
  void setMetadata(std::string key, GgufValue value);
  // `values` in row-major order of `shape` (outermost dimension first, at most 4 dimensions).
  void addTensor(std::string name, const std::vector<int64_t>& shape, std::span<const float> values,
                 GgmlType storeAs = GgmlType::F32);
  // Bytes already in `type`'s layout, ggmlStorageBytes(type, elements) of them.
  void addRawTensor(std::string name, const std::vector<int64_t>& shape, GgmlType type, std::vector<uint8_t> bytes);

  // The whole file image.
  std::vector<uint8_t> bytes() const;
  // Throws InvalidArgument(path, ...) when the file cannot be written.
  void write(const std::filesystem::path& path) const;

 private:
  struct Tensor {
    std::string name;
    std::vector<uint64_t> dims;  // ggml order, innermost first
    GgmlType type;
    std::vector<uint8_t> bytes;
  };

  uint32_t m_alignment;
  GgufMetadata m_metadata{"the GGUF being written"};
  std::vector<Tensor> m_tensors;
  std::set<std::string, std::less<>> m_tensorNames;
};

}  // namespace vkattn
