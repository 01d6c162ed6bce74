// What gguf_crosscheck.py asks of vkattn's GGUF code, one command per run:
//   gguf_probe read FILE OUTDIR       metadata to OUTDIR/metadata.json; each dequantizable tensor
//                                     to OUTDIR/<name>.npy (float32, row-major shape)
//   gguf_probe quantize TYPE IN.npy OUT.bin    IN's floats stored as TYPE (F16, BF16, Q8_0, Q4_0,
//                                              Q4_K, Q5_K, Q6_K)
//   gguf_probe dequantize TYPE IN.bin OUT.npy  IN's blocks of TYPE decoded to a float32 vector
//   gguf_probe write FILE             a sample written by GgufWriter (the script rebuilds its values)
//   gguf_probe types                  "id name elements-per-block bytes-per-block" for ids 0..255 known
// Exit status 0 on success, 1 with a message on any error.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "vkattn/core/error.hpp"
#include "vkattn/io/ggml_quant.hpp"
#include "vkattn/io/gguf.hpp"
#include "vkattn/io/gguf_writer.hpp"
#include "vkattn/io/npy.hpp"

namespace {

using vkattn::GgmlType;
using vkattn::GgufValue;
using vkattn::GgufValueType;

nlohmann::json plain(const GgufValue& value) {
  return std::visit(
      [](const auto& v) -> nlohmann::json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, vkattn::GgufArray>) {
          nlohmann::json items = nlohmann::json::array();
          for (const GgufValue& item : v.items) items.push_back(plain(item));
          return items;
        } else if constexpr (std::is_same_v<T, float>) {
          return static_cast<double>(v);
        } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t>) {
          return static_cast<int64_t>(v);
        } else if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t>) {
          return static_cast<uint64_t>(v);
        } else {
          return v;
        }
      },
      value.storage());
}

// The innermost element type of a (possibly nested) array.
std::string elementTypeOf(const GgufValue& value) {
  const vkattn::GgufArray* array = value.getIf<vkattn::GgufArray>();
  if (!array) return vkattn::ggufValueTypeName(value.type());
  if (array->elementType == GgufValueType::Array && !array->items.empty()) return elementTypeOf(array->items[0]);
  return vkattn::ggufValueTypeName(array->elementType);
}

int read(const std::string& path, const std::filesystem::path& out) {
  const vkattn::GgufFile file(path);
  nlohmann::json metadata = nlohmann::json::object();
  for (const auto& [key, value] : file.metadata().entries())
    metadata[key] = {{"type", vkattn::ggufValueTypeName(value.type())},
                     {"element_type", elementTypeOf(value)},
                     {"value", plain(value)}};
  nlohmann::json tensors = nlohmann::json::object();
  for (const vkattn::GgufTensorInfo& t : file.tensors()) {
    tensors[t.name] = {{"type", vkattn::ggmlTypeName(t.type)}, {"dims", t.dims}, {"offset", t.offset}};
    if (vkattn::ggmlCanDequantize(t.type))
      vkattn::io::writeNpy(out / (t.name + ".npy"), t.rowMajorShape(), file.dequantize(t.name));
  }
  const nlohmann::json report = {
      {"version", file.version()}, {"alignment", file.alignment()}, {"metadata", metadata}, {"tensors", tensors}};
  std::ofstream(out / "metadata.json") << report.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}

GgmlType typeNamed(const std::string& name) {
  for (uint32_t id = 0; id < 64; ++id)  // ggml's ids (ggml_types.hpp)
    if (const auto traits = vkattn::ggmlTypeTraits(id); traits && traits->name == name)
      if (vkattn::ggmlCanQuantize(static_cast<GgmlType>(id))) return static_cast<GgmlType>(id);
  throw vkattn::InvalidArgument("TYPE", "'" + name + "' is not one of " + vkattn::ggmlStorageFormatTypeNames());
}

int quantize(const std::string& type, const std::string& in, const std::string& out) {
  const auto array = vkattn::io::readNpy(in);
  const std::vector<uint8_t> bytes = vkattn::quantizeGgml(typeNamed(type), vkattn::io::npyFloats(array, in));
  std::ofstream(out, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return 0;
}

int dequantize(const std::string& type, const std::string& in, const std::string& out) {
  std::ifstream file(in, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const GgmlType t = typeNamed(type);
  const vkattn::GgmlTypeTraits traits = vkattn::ggmlTypeTraits(t);
  const uint64_t elements = bytes.size() / traits.blockBytes * traits.blockElements;
  const std::vector<float> values = vkattn::dequantizeGgml(t, bytes, elements);
  vkattn::io::writeNpy(out, {static_cast<int64_t>(elements)}, values);
  return 0;
}

// Values the script computes the same way: ((i * 37) % 101 - 50) / 16, exact in float.
std::vector<float> ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>(i * 37 % 101) - 50) / 16.0f;
  return v;
}

int write(const std::string& path) {
  vkattn::GgufWriter w(64);
  w.setMetadata("general.architecture", GgufValue("llama"));
  w.setMetadata("sample.u8", GgufValue(uint8_t{7}));
  w.setMetadata("sample.i16", GgufValue(int16_t{-300}));
  w.setMetadata("sample.u32", GgufValue(uint32_t{4000000000u}));
  w.setMetadata("sample.i64", GgufValue(int64_t{-5}));
  w.setMetadata("sample.f32", GgufValue(0.25f));
  w.setMetadata("sample.f64", GgufValue(1.0 / 3.0));
  w.setMetadata("sample.bool", GgufValue(false));
  w.setMetadata("sample.tokens", GgufValue::arrayOf(std::vector<std::string>{"<s>", "h\xc3\xa9", "</s>"}));
  w.setMetadata("sample.scores", GgufValue::arrayOf(std::vector<float>{-1.5f, 0.0f, 2.0f}));
  const std::vector<float> x = ramp(2 * 64);
  w.addTensor("sample.f32", {2, 64}, x);
  w.addTensor("sample.f16", {2, 64}, x, GgmlType::F16);
  w.addTensor("sample.bf16", {2, 64}, x, GgmlType::BF16);
  w.addTensor("sample.q8_0", {2, 64}, x, GgmlType::Q8_0);
  w.addTensor("sample.q4_0", {2, 64}, x, GgmlType::Q4_0);
  w.write(path);
  return 0;
}

int types() {
  for (uint32_t id = 0; id < 256; ++id)
    if (const auto traits = vkattn::ggmlTypeTraits(id))
      std::cout << id << " " << traits->name << " " << traits->blockElements << " " << traits->blockBytes << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 3 && args[0] == "read") return read(args[1], args[2]);
    if (args.size() == 4 && args[0] == "quantize") return quantize(args[1], args[2], args[3]);
    if (args.size() == 4 && args[0] == "dequantize") return dequantize(args[1], args[2], args[3]);
    if (args.size() == 2 && args[0] == "write") return write(args[1]);
    if (args.size() == 1 && args[0] == "types") return types();
  } catch (const std::exception& e) {
    std::cerr << "gguf_probe: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "usage: gguf_probe read FILE OUTDIR | quantize TYPE IN.npy OUT.bin | dequantize TYPE IN.bin OUT.npy | "
               "write FILE | types\n";
  return 1;
}
