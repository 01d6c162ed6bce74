// GGUF files from Python through io's reader and writer: write_gguf(path, metadata, tensors)
// and read_gguf(path). Metadata values map to GGUF value types as gguf-py maps them (bool ->
// BOOL, int -> INT32, float -> FLOAT32, str -> STRING, list -> ARRAY of its first item's type);
// a (value, "UINT32") pair gives the type explicitly (for a list: its elements' type), as
// llama.cpp's keys require. Tensors are quantized by io's quantizeGgml into any type it encodes
// (ggml_quant.hpp lists them).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "input_checks.hpp"
#include "vkattn/io/ggml_quant.hpp"
#include "vkattn/io/gguf.hpp"
#include "vkattn/io/gguf_writer.hpp"

namespace vkattn::python {
namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

GgufValueType valueTypeNamed(const std::string& name, const std::string& key) {
  const std::string wanted = upper(name);
  for (uint32_t id = 0; id <= static_cast<uint32_t>(GgufValueType::Float64); ++id)
    if (wanted == ggufValueTypeName(static_cast<GgufValueType>(id))) return static_cast<GgufValueType>(id);
  throw py::value_error("metadata '" + key + "': unknown GGUF value type '" + name +
                        "' (UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, UINT64, INT64, FLOAT64)");
}

GgmlType ggmlTypeNamed(const std::string& name, const std::string& tensor) {
  const std::string wanted = upper(name);
  for (uint32_t id = 0; id < 64; ++id)
    if (const auto traits = ggmlTypeTraits(id); traits && wanted == traits->name) {
      if (!ggmlCanQuantize(static_cast<GgmlType>(id)))
        throw py::value_error("tensor '" + tensor + "': vkattn does not quantize to " + wanted);
      return static_cast<GgmlType>(id);
    }
  throw py::value_error("tensor '" + tensor + "': unknown ggml type '" + name + "'");
}

template <class T>
GgufValue integerAs(const py::handle& value, const std::string& key) {
  if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value))
    throw py::type_error("metadata '" + key + "': " + std::string(ggufValueTypeName(ggufValueTypeOf<T>())) +
                         " needs an int, got " + std::string(py::repr(value)));
  const py::int_ number = py::reinterpret_borrow<py::int_>(value);
  const bool fits =
      number >= py::int_(std::numeric_limits<T>::min()) && number <= py::int_(std::numeric_limits<T>::max());
  if (!fits)
    throw py::value_error("metadata '" + key + "': " + std::string(py::repr(value)) + " does not fit " +
                          ggufValueTypeName(ggufValueTypeOf<T>()));
  if constexpr (std::is_signed_v<T>) return GgufValue(static_cast<T>(py::cast<long long>(number)));
  return GgufValue(static_cast<T>(py::cast<unsigned long long>(number)));
}

GgufValue scalarAs(const py::handle& value, GgufValueType type, const std::string& key) {
  switch (type) {
    case GgufValueType::UInt8:
      return integerAs<uint8_t>(value, key);
    case GgufValueType::Int8:
      return integerAs<int8_t>(value, key);
    case GgufValueType::UInt16:
      return integerAs<uint16_t>(value, key);
    case GgufValueType::Int16:
      return integerAs<int16_t>(value, key);
    case GgufValueType::UInt32:
      return integerAs<uint32_t>(value, key);
    case GgufValueType::Int32:
      return integerAs<int32_t>(value, key);
    case GgufValueType::UInt64:
      return integerAs<uint64_t>(value, key);
    case GgufValueType::Int64:
      return integerAs<int64_t>(value, key);
    case GgufValueType::Float32:
    case GgufValueType::Float64:
      if (!py::isinstance<py::float_>(value) && !py::isinstance<py::int_>(value))
        throw py::type_error("metadata '" + key + "': a float type needs a number, got " +
                             std::string(py::repr(value)));
      if (type == GgufValueType::Float32) return GgufValue(py::cast<float>(value));
      return GgufValue(py::cast<double>(value));
    case GgufValueType::Bool:
      if (!py::isinstance<py::bool_>(value))
        throw py::type_error("metadata '" + key + "': BOOL needs a bool, got " + std::string(py::repr(value)));
      return GgufValue(py::cast<bool>(value));
    case GgufValueType::String:
      if (!py::isinstance<py::str>(value))
        throw py::type_error("metadata '" + key + "': STRING needs a str, got " + std::string(py::repr(value)));
      return GgufValue(py::cast<std::string>(value));
    case GgufValueType::Array:
      break;
  }
  throw py::value_error("metadata '" + key + "': ARRAY needs a list");
}

// gguf-py's choice of type for an untyped Python value.
GgufValueType inferredType(const py::handle& value, const std::string& key) {
  if (py::isinstance<py::bool_>(value)) return GgufValueType::Bool;
  if (py::isinstance<py::int_>(value)) return GgufValueType::Int32;
  if (py::isinstance<py::float_>(value)) return GgufValueType::Float32;
  if (py::isinstance<py::str>(value)) return GgufValueType::String;
  if (py::isinstance<py::list>(value)) return GgufValueType::Array;
  throw py::type_error("metadata '" + key + "': cannot store " + std::string(py::repr(value.get_type())) +
                       " (bool, int, float, str, list, or a (value, 'TYPE') pair)");
}

GgufValue metadataValue(const py::handle& given, const std::string& key) {
  py::handle value = given;
  std::optional<GgufValueType> type;
  if (py::isinstance<py::tuple>(given)) {
    const auto pair = py::reinterpret_borrow<py::tuple>(given);
    if (pair.size() != 2 || !py::isinstance<py::str>(pair[1]))
      throw py::type_error("metadata '" + key + "': a tuple must be (value, 'TYPE')");
    value = pair[0];
    type = valueTypeNamed(py::cast<std::string>(pair[1]), key);
  }
  if (!py::isinstance<py::list>(value)) return scalarAs(value, type ? *type : inferredType(value, key), key);
  const auto items = py::reinterpret_borrow<py::list>(value);
  if (!type && items.empty())
    throw py::value_error("metadata '" + key + "': an empty list needs a (list, 'TYPE') pair");
  const GgufValueType element = type ? *type : inferredType(items[0], key);
  GgufArray array{element, {}};
  array.items.reserve(items.size());
  for (const py::handle item : items)
    array.items.push_back(element == GgufValueType::Array ? metadataValue(item, key) : scalarAs(item, element, key));
  return GgufValue(std::move(array));
}

void writeGguf(const std::string& path, const py::dict& metadata, const py::iterable& tensors, uint32_t alignment) {
  GgufWriter writer(alignment);
  for (const auto& [key, value] : metadata) {
    if (!py::isinstance<py::str>(key))
      throw py::type_error("metadata keys must be str, got " + std::string(py::repr(key)));
    const auto name = py::cast<std::string>(key);
    writer.setMetadata(name, metadataValue(value, name));
  }
  for (const py::handle entry : tensors) {
    const auto t = py::cast<py::tuple>(entry);
    if (t.size() != 3) throw py::type_error("each tensor must be (name, array, 'GGML_TYPE')");
    const auto name = py::cast<std::string>(t[0]);
    const auto values = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(t[1]);
    if (!values) throw py::type_error("tensor '" + name + "': the values must be a float array");
    if (values.ndim() < 1) throw py::value_error("tensor '" + name + "': needs at least one dimension");
    const GgmlType type = ggmlTypeNamed(py::cast<std::string>(t[2]), name);
    const std::vector<int64_t> shape(values.shape(), values.shape() + values.ndim());
    const auto block = ggmlTypeTraits(type).blockElements;
    if (shape.back() % block != 0)
      throw py::value_error("tensor '" + name + "': innermost dimension " + std::to_string(shape.back()) +
                            " is not a multiple of the " + ggmlTypeName(type) + " block of " + std::to_string(block));
    std::vector<uint8_t> bytes = quantizeGgml(type, std::span(values.data(), static_cast<std::size_t>(values.size())));
    writer.addRawTensor(name, shape, type, std::move(bytes));
  }
  writer.write(path);
}

py::object pythonValue(const GgufValue& value) {
  return std::visit(
      [](const auto& v) -> py::object {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, GgufArray>) {
          py::list items;
          for (const GgufValue& item : v.items) items.append(pythonValue(item));
          return items;
        } else if constexpr (std::is_same_v<T, std::string>) {
          return py::reinterpret_steal<py::object>(
              PyUnicode_DecodeUTF8(v.data(), static_cast<Py_ssize_t>(v.size()), "surrogateescape"));
        } else {
          return py::cast(v);
        }
      },
      value.storage());
}

std::string typeName(const GgufValue& value) {
  if (const auto* array = value.getIf<GgufArray>())
    return std::string("ARRAY[") + ggufValueTypeName(array->elementType) + "]";
  return ggufValueTypeName(value.type());
}

py::dict readGguf(const py::object& pathArgument) {
  const GgufFile file(existingFile(pathArgument, "path"));
  py::dict metadata, metadataTypes, tensors, tensorTypes;
  for (const auto& [key, value] : file.metadata().entries()) {
    metadata[py::str(key)] = pythonValue(value);
    metadataTypes[py::str(key)] = typeName(value);
  }
  for (const GgufTensorInfo& info : file.tensors()) {
    const std::vector<float> values = file.dequantize(info.name);
    const std::vector<int64_t> shape = info.rowMajorShape();
    py::array_t<float> array(std::vector<py::ssize_t>(shape.begin(), shape.end()));
    std::memcpy(array.mutable_data(), values.data(), values.size() * sizeof(float));
    tensors[py::str(info.name)] = std::move(array);
    tensorTypes[py::str(info.name)] = ggmlTypeName(info.type);
  }
  py::dict out;
  out["metadata"] = metadata;
  out["metadata_types"] = metadataTypes;
  out["tensors"] = tensors;
  out["tensor_types"] = tensorTypes;
  out["alignment"] = file.alignment();
  return out;
}

}  // namespace

void bindGguf(py::module_& m) {
  m.def("write_gguf", &writeGguf, py::arg("path"), py::arg("metadata"), py::arg("tensors"),
        py::arg("alignment") = kGgufDefaultAlignment,
        "Writes a GGUF v3 file. metadata: {key: value}, a value a bool, int (INT32), float (FLOAT32), str or\n"
        "list, or a (value, 'UINT32') pair naming its GGUF type (for a list, its elements' type).\n"
        "tensors: [(name, float array, 'Q8_0'), ...] in file order, quantized by vkattn into F32, F16, BF16,\n"
        "Q8_0, Q4_0, Q4_K, Q5_K or Q6_K; the innermost dimension must be whole blocks.");
  m.def("read_gguf", &readGguf, py::arg("path"),
        "Reads a GGUF file: {'metadata': {key: value}, 'metadata_types': {key: 'UINT32' or 'ARRAY[STRING]'},\n"
        "'tensors': {name: float32 array, outermost dimension first}, 'tensor_types': {name: 'Q4_K'},\n"
        "'alignment': int}, tensors dequantized.");
}

}  // namespace vkattn::python
