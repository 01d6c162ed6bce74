#include "attention_maps.hpp"

#include <cmath>
#include <cstdio>

#include "vkattn/core/error.hpp"
#include "vkattn/io/attention_folder.hpp"
#include "vkattn/io/utf8.hpp"

namespace vkattn::python {
namespace {

// Tokens for one axis: a sequence of str of length n (line breaks are written as "↵").
std::vector<std::string> tokenList(const py::object& tokens, int64_t n, const std::string& name) {
  if (py::isinstance<py::str>(tokens) || !py::isinstance<py::sequence>(tokens))
    throw py::type_error("'" + name + "' must be a sequence of str");
  std::vector<std::string> out;
  for (const py::handle item : tokens) {
    if (!py::isinstance<py::str>(item)) throw py::type_error("'" + name + "' must hold str only");
    out.push_back(utf8Text(item));
  }
  if (static_cast<int64_t>(out.size()) != n)
    throw py::value_error("'" + name + "' has " + std::to_string(out.size()) + " tokens; attn has " +
                          std::to_string(n) + (name == "row_tokens" ? " rows" : " columns"));
  return out;
}

}  // namespace

std::string utf8Text(const py::handle& text) {
  PyObject* s = text.ptr();
  const Py_ssize_t length = PyUnicode_GetLength(s);
  if (length < 0) throw py::error_already_set();
  const int kind = PyUnicode_KIND(s);
  const void* data = PyUnicode_DATA(s);
  std::string out;
  out.reserve(static_cast<std::size_t>(length));
  for (Py_ssize_t i = 0; i < length; ++i) {
    const uint32_t cp = PyUnicode_READ(kind, data, i);
    if (cp >= 0xdc80 && cp <= 0xdcff) {  // a byte that surrogateescape could not decode
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", cp - 0xdc00);
      out += escaped;
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", cp);
      out += escaped;
    } else {
      io::appendUtf8(out, cp);
    }
  }
  return out;
}

AttentionMaps checkedMaps(const py::object& attn, const py::object& rowTokens, const py::object& colTokens) {
  AttentionMaps maps;
  try {
    maps.values = py::module_::import("numpy").attr("ascontiguousarray")(attn, "float32");
  } catch (const py::error_already_set&) {
    throw py::type_error("'attn' must be an array of numbers");
  }
  const py::ssize_t ndim = maps.values.ndim();
  if (ndim < 2 || ndim > 4)
    throw py::value_error("'attn' must be [rows, cols], [heads, rows, cols] or [layers, heads, rows, cols], got " +
                          std::to_string(ndim) + " dimensions");
  if (maps.values.size() == 0) throw py::value_error("'attn' is empty");
  maps.rows = maps.values.shape(ndim - 2);
  maps.cols = maps.values.shape(ndim - 1);
  if (ndim >= 3) maps.heads = maps.values.shape(ndim - 3);
  if (ndim == 4) maps.layers = maps.values.shape(0);
  const float* data = maps.values.data();
  for (py::ssize_t i = 0; i < maps.values.size(); ++i)
    if (!std::isfinite(data[i])) throw py::value_error("'attn' contains NaN or infinity");
  maps.rowTokens = tokenList(rowTokens, maps.rows, "row_tokens");
  if (colTokens.is_none()) {
    if (maps.rows != maps.cols)
      throw py::value_error("'col_tokens' is needed: attn is " + std::to_string(maps.rows) + " x " +
                            std::to_string(maps.cols));
    maps.colTokens = maps.rowTokens;
  } else {
    maps.colTokens = tokenList(colTokens, maps.cols, "col_tokens");
  }
  return maps;
}

void writeAttentionFolder(const std::string& dir, const AttentionMaps& maps) {
  const float* data = maps.values.data();
  Shape shape;
  for (py::ssize_t d = 0; d < maps.values.ndim(); ++d) shape.push_back(maps.values.shape(d));
  try {
    io::writeAttentionFolder(dir, shape, std::vector<float>(data, data + maps.values.size()), maps.rowTokens,
                             maps.colTokens);
  } catch (const InvalidArgument& e) {
    throw py::value_error("'dir': " + e.argument() + ": " + e.problem());
  }
}

}  // namespace vkattn::python
