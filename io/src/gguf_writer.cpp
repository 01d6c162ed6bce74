#include "vkattn/io/gguf_writer.hpp"

#include <bit>
#include <fstream>
#include <limits>
#include <type_traits>
#include <variant>

#include "vkattn/core/error.hpp"
#include "vkattn/io/ggml_quant.hpp"

namespace vkattn {
namespace {

constexpr uint32_t kVersion = 3;

class ByteSink {
 public:
  template <class T>
  void put(T value) {
    using Bits = std::conditional_t<
        sizeof(T) == 1, uint8_t,
        std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
    const auto bits = std::bit_cast<Bits>(value);
    for (std::size_t i = 0; i < sizeof(T); ++i) m_bytes.push_back(static_cast<uint8_t>(bits >> (8 * i)));
  }
  void putString(const std::string& text) {
    put<uint64_t>(text.size());
    m_bytes.insert(m_bytes.end(), text.begin(), text.end());
  }
  void putBytes(const std::vector<uint8_t>& bytes) { m_bytes.insert(m_bytes.end(), bytes.begin(), bytes.end()); }
  void padTo(uint32_t alignment) { m_bytes.resize((m_bytes.size() + alignment - 1) / alignment * alignment, 0); }
  std::vector<uint8_t>& bytes() noexcept { return m_bytes; }

 private:
  std::vector<uint8_t> m_bytes;
};

void putValue(ByteSink& sink, const GgufValue& value) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          sink.putString(v);
        } else if constexpr (std::is_same_v<T, GgufArray>) {
          sink.put(static_cast<uint32_t>(v.elementType));
          sink.put<uint64_t>(v.items.size());
          for (const GgufValue& item : v.items) putValue(sink, item);
        } else if constexpr (std::is_same_v<T, bool>) {
          sink.put<uint8_t>(v ? 1 : 0);
        } else {
          sink.put(v);
        }
      },
      value.storage());
}

// Every item of every array (nested ones too) has its array's element type.
void requireUniformArrays(const std::string& key, const GgufValue& value, int depth = 0) {
  const GgufArray* array = value.getIf<GgufArray>();
  if (!array) return;
  if (depth >= 16) throw InvalidArgument(key, "arrays nest deeper than 16 levels");
  for (const GgufValue& item : array->items) {
    if (item.type() != array->elementType)
      throw InvalidArgument(key, std::string("an ARRAY of ") + ggufValueTypeName(array->elementType) + " holds a " +
                                     ggufValueTypeName(item.type()) + " value");
    requireUniformArrays(key, item, depth + 1);
  }
}

}  // namespace

GgufWriter::GgufWriter(uint32_t alignment) : m_alignment(alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    throw InvalidArgument("alignment", std::to_string(alignment) + " is not a nonzero power of two");
  if (alignment != kGgufDefaultAlignment) m_metadata.add("general.alignment", GgufValue(alignment));
}

void GgufWriter::setMetadata(std::string key, GgufValue value) {
  if (key == "general.alignment")
    throw InvalidArgument(key, "is set from the writer's alignment (a constructor argument)");
  requireUniformArrays(key, value);
  m_metadata.add(std::move(key), std::move(value));
}

void GgufWriter::addTensor(std::string name, const std::vector<int64_t>& shape, std::span<const float> values,
                           GgmlType storeAs) {
  std::vector<uint8_t> bytes;
  try {
    bytes = quantizeGgml(storeAs, values);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(name, e.problem());
  }
  addRawTensor(std::move(name), shape, storeAs, std::move(bytes));
}

void GgufWriter::addRawTensor(std::string name, const std::vector<int64_t>& shape, GgmlType type,
                              std::vector<uint8_t> bytes) {
  if (m_tensorNames.count(name)) throw InvalidArgument(name, "a tensor of this name was already added");
  if (shape.size() > kGgufMaxDims)
    throw InvalidArgument(name, "has " + std::to_string(shape.size()) + " dimensions; GGUF allows at most " +
                                    std::to_string(kGgufMaxDims));
  Tensor t{name, {}, type, std::move(bytes)};
  // As the reader counts: a zero dimension empties the tensor but does not excuse the others.
  uint64_t product = 1;
  bool empty = false;
  for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
    if (*it < 0) throw InvalidArgument(name, "dimension " + std::to_string(*it) + " is negative");
    const auto d = static_cast<uint64_t>(*it);
    t.dims.push_back(d);
    if (d == 0) {
      empty = true;
      continue;
    }
    if (product > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / d)
      throw InvalidArgument(name, "shape holds more than 2^63 - 1 elements");
    product *= d;
  }
  const uint64_t elements = empty ? 0 : product;
  const GgmlTypeTraits traits = ggmlTypeTraits(type);
  const uint64_t rowLength = t.dims.empty() ? 1 : t.dims[0];
  if (rowLength % traits.blockElements != 0)
    throw InvalidArgument(name, "innermost dimension " + std::to_string(rowLength) + " is not a multiple of the " +
                                    traits.name + " block of " + std::to_string(traits.blockElements) + " elements");
  if (ggmlStorageBytes(type, elements) != t.bytes.size())
    throw InvalidArgument(name, std::to_string(t.bytes.size()) + " bytes do not hold " + std::to_string(elements) +
                                    " " + traits.name + " elements");
  m_tensorNames.insert(name);
  m_tensors.push_back(std::move(t));
}

std::vector<uint8_t> GgufWriter::bytes() const {
  ByteSink sink;
  for (const char c : {'G', 'G', 'U', 'F'}) sink.put(static_cast<uint8_t>(c));
  sink.put(kVersion);
  sink.put<uint64_t>(m_tensors.size());
  sink.put<uint64_t>(m_metadata.size());
  for (const auto& [key, value] : m_metadata.entries()) {
    sink.putString(key);
    sink.put(static_cast<uint32_t>(value.type()));
    putValue(sink, value);
  }
  uint64_t offset = 0;
  for (const Tensor& t : m_tensors) {
    sink.putString(t.name);
    sink.put(static_cast<uint32_t>(t.dims.size()));
    for (const uint64_t d : t.dims) sink.put(d);
    sink.put(static_cast<uint32_t>(t.type));
    sink.put(offset);
    offset += (t.bytes.size() + m_alignment - 1) / m_alignment * m_alignment;
  }
  sink.padTo(m_alignment);
  for (const Tensor& t : m_tensors) {
    sink.putBytes(t.bytes);
    sink.padTo(m_alignment);
  }
  return std::move(sink.bytes());
}

void GgufWriter::write(const std::filesystem::path& path) const {
  const std::vector<uint8_t> image = bytes();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
  if (!out) throw InvalidArgument(path.string(), "cannot write the file");
}

}  // namespace vkattn
