// NumPy attention maps and Python token strings, checked, then written as an attention folder
// (the maps layout of vkattn/io/attention_folder.hpp, what `vkattn-viewer --source npy:DIR` opens),
// so that view() can check its choices against the maps' shape in between.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vkattn::python {

namespace py = pybind11;

// Any Python str as UTF-8. Lone surrogates, which no UTF-8 holds, are written visibly: those that
// surrogateescape makes of undecodable bytes (U+DC80..U+DCFF) as the byte, "\xff", the others as
// "\ud800". The viewer shows bytes of a token file that are not UTF-8 the same way.
std::string utf8Text(const py::handle& text);

// attn as float32 [layers, heads, rows, cols] (missing leading dimensions are 1) with the tokens
// of both axes, every one checked.
struct AttentionMaps {
  py::array_t<float> values;  // as given (2, 3 or 4 dimensions), C order
  int64_t layers = 1, heads = 1, rows = 0, cols = 0;
  std::vector<std::string> rowTokens, colTokens;
};

// Raises TypeError / ValueError naming 'attn', 'row_tokens' or 'col_tokens'. col_tokens may be
// None for a square map (the row tokens then label both axes).
AttentionMaps checkedMaps(const py::object& attn, const py::object& rowTokens, const py::object& colTokens);

// Writes the folder (created when missing) with vkattn::io; raises ValueError naming 'dir' when it
// cannot.
void writeAttentionFolder(const std::string& dir, const AttentionMaps& maps);

}  // namespace vkattn::python
