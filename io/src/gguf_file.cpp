#include <cstring>
#include <limits>

#include "gguf_cursor.hpp"
#include "gguf_image.hpp"
#include "gguf_metadata_reader.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/io/ggml_quant.hpp"
#include "vkattn/io/gguf.hpp"

namespace vkattn {
namespace {

constexpr uint8_t kMagic[4] = {'G', 'G', 'U', 'F'};
constexpr uint64_t kMaxElements = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
// Name length, dimension count, type and offset: the fewest bytes a tensor's entry takes.
constexpr uint64_t kMinimumTensorInfoBytes = 8 + 4 + 4 + 8;

std::string dimsText(const std::vector<uint64_t>& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

void readHeader(GgufCursor& cursor, uint32_t& version) {
  cursor.require(4, "the magic \"GGUF\"");
  uint8_t magic[4];
  for (uint8_t& byte : magic) byte = cursor.read<uint8_t>("magic");
  if (std::memcmp(magic, kMagic, 4) != 0)
    throw InvalidArgument(cursor.fileName(), "not a GGUF file: it does not start with the magic \"GGUF\"");
  version = cursor.read<uint32_t>("version");
  if (version == 1)
    throw InvalidArgument(cursor.fileName(), "GGUF version 1 (32-bit counts) is not supported; versions 2 and 3 are");
  if (version != 0 && (version & 0xffffu) == 0)
    throw InvalidArgument(cursor.fileName(), "version field " + std::to_string(version) +
                                                 " looks byte-swapped: big-endian GGUF files are not supported");
  if (version != 2 && version != 3)
    throw InvalidArgument(cursor.fileName(),
                          "GGUF version " + std::to_string(version) + " is not supported; versions 2 and 3 are");
}

uint32_t alignmentOf(const GgufMetadata& metadata, const std::string& fileName) {
  if (!metadata.contains("general.alignment")) return kGgufDefaultAlignment;
  const uint32_t alignment = metadata.getU32("general.alignment");
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    throw InvalidArgument("general.alignment",
                          "is " + std::to_string(alignment) + " in " + fileName + ", expected a nonzero power of two");
  return alignment;
}

// Reads name, dimensions, type and offset; checks the dimension count, the type id and the
// element and byte counts (not yet the data range, which needs the data section's start).
GgufTensorInfo readTensorInfo(GgufCursor& cursor) {
  GgufTensorInfo t;
  t.name = cursor.readString("tensor name");
  try {
    const uint32_t dimCount = cursor.read<uint32_t>("dimension count");
    if (dimCount > kGgufMaxDims)
      throw InvalidArgument(cursor.fileName(), "has " + std::to_string(dimCount) + " dimensions; GGUF allows at most " +
                                                   std::to_string(kGgufMaxDims));
    for (uint32_t d = 0; d < dimCount; ++d) t.dims.push_back(cursor.read<uint64_t>("dimension"));
    const uint32_t typeId = cursor.read<uint32_t>("ggml type");
    const auto traits = ggmlTypeTraits(typeId);
    if (!traits) throw InvalidArgument(cursor.fileName(), "unknown ggml type id " + std::to_string(typeId));
    t.type = static_cast<GgmlType>(typeId);
    t.offset = cursor.read<uint64_t>("data offset");

    // Zero dimensions are allowed (no elements) but cannot hide a product of the others that overflows.
    uint64_t product = 1;
    bool empty = false;
    for (const uint64_t d : t.dims) {
      if (d == 0) {
        empty = true;
        continue;
      }
      if (product > kMaxElements / d)
        throw InvalidArgument(cursor.fileName(),
                              "dimensions " + dimsText(t.dims) + " hold more than 2^63 - 1 elements");
      product *= d;
    }
    t.elements = empty ? 0 : product;
    const uint64_t rowLength = t.dims.empty() ? 1 : t.dims[0];
    if (rowLength % traits->blockElements != 0)
      throw InvalidArgument(cursor.fileName(), "innermost dimension " + std::to_string(rowLength) +
                                                   " is not a multiple of the " + traits->name + " block of " +
                                                   std::to_string(traits->blockElements) + " elements");
    const uint64_t blocks = t.elements / traits->blockElements;
    if (blocks > std::numeric_limits<uint64_t>::max() / traits->blockBytes)
      throw InvalidArgument(cursor.fileName(),
                            "dimensions " + dimsText(t.dims) + " of " + traits->name + " take more than 2^64 bytes");
    t.bytes = blocks * traits->blockBytes;
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(e.argument(), "tensor '" + t.name + "': " + e.problem());
  }
  return t;
}

}  // namespace

std::vector<int64_t> GgufTensorInfo::rowMajorShape() const {
  return std::vector<int64_t>(dims.rbegin(), dims.rend());  // each dimension fits int64 (checked on load)
}

GgufFile::GgufFile(const std::filesystem::path& path) : m_name(path.string()), m_image(std::make_unique<Image>(path)) {
  parse();
}

GgufFile GgufFile::fromBytes(std::vector<uint8_t> bytes, std::string name) {
  GgufFile file;
  file.m_name = std::move(name);
  file.m_image = std::make_unique<Image>(std::move(bytes));
  file.parse();
  return file;
}

GgufFile::~GgufFile() = default;
GgufFile::GgufFile(GgufFile&&) noexcept = default;
GgufFile& GgufFile::operator=(GgufFile&&) noexcept = default;

void GgufFile::parse() {
  GgufCursor cursor(m_image->bytes(), m_name);
  readHeader(cursor, m_version);
  const uint64_t tensorCount = cursor.read<uint64_t>("tensor count");
  const uint64_t metadataCount = cursor.read<uint64_t>("metadata count");
  m_metadata = readGgufMetadata(cursor, metadataCount);
  m_alignment = alignmentOf(m_metadata, m_name);

  if (tensorCount > cursor.remaining() / kMinimumTensorInfoBytes)
    throw InvalidArgument(m_name, "tensor count " + std::to_string(tensorCount) + " needs at least " +
                                      std::to_string(tensorCount) + " x " + std::to_string(kMinimumTensorInfoBytes) +
                                      " bytes, but only " + std::to_string(cursor.remaining()) +
                                      " remain after the metadata");
  m_tensors.reserve(static_cast<std::size_t>(tensorCount));
  for (uint64_t i = 0; i < tensorCount; ++i) {
    GgufTensorInfo t = readTensorInfo(cursor);
    if (!m_index.emplace(t.name, m_tensors.size()).second)
      throw InvalidArgument(m_name, "tensor '" + t.name + "' appears twice");
    m_tensors.push_back(std::move(t));
  }

  // The data section starts at the next multiple of the alignment; tensors lie at aligned offsets in it.
  const uint64_t size = cursor.size();
  m_dataStart = (cursor.position() + m_alignment - 1) / m_alignment * m_alignment;
  for (const GgufTensorInfo& t : m_tensors) {
    const std::string where = "tensor '" + t.name + "': ";
    if (t.offset % m_alignment != 0)
      throw InvalidArgument(m_name, where + "data offset " + std::to_string(t.offset) +
                                        " is not a multiple of the alignment " + std::to_string(m_alignment));
    if (m_dataStart > size || t.offset > size - m_dataStart || t.bytes > size - m_dataStart - t.offset)
      throw InvalidArgument(m_name, where + "data at offset " + std::to_string(t.offset) + " (" +
                                        std::to_string(t.bytes) + " bytes, in the data section from byte " +
                                        std::to_string(m_dataStart) + ") reaches past the end of the file (" +
                                        std::to_string(size) + " bytes)");
  }
}

const GgufTensorInfo& GgufFile::tensor(const std::string& name) const {
  const auto it = m_index.find(name);
  if (it == m_index.end()) throw InvalidArgument(name, "no such tensor in " + m_name);
  return m_tensors[it->second];
}

std::span<const uint8_t> GgufFile::tensorBytes(const std::string& name) const {
  const GgufTensorInfo& t = tensor(name);
  return m_image->bytes().subspan(static_cast<std::size_t>(m_dataStart + t.offset), static_cast<std::size_t>(t.bytes));
}

std::vector<float> GgufFile::dequantize(const std::string& name) const {
  const GgufTensorInfo& t = tensor(name);
  if (!ggmlCanDequantize(t.type))
    throw Unsupported("tensor '" + name + "' in " + m_name + ": dequantizing ggml type " + ggmlTypeName(t.type) +
                      " is not supported (" + ggmlStorageFormatTypeNames() + " are)");
  return dequantizeGgml(t.type, tensorBytes(name), t.elements);
}

}  // namespace vkattn
