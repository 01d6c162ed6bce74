// view() and save_attention(): NumPy attention maps in the viewer's folder format, and
// vkattn-viewer run on them, in a window or headless to write a PNG of the figure, with the same
// choices either way.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "attention_maps.hpp"
#include "bindings.hpp"
#include "input_checks.hpp"
#include "viewer_choices.hpp"
#include "viewer_process.hpp"

namespace vkattn::python {
namespace {

std::string saveAttention(const py::object& dir, const py::object& attn, const py::object& rowTokens,
                          const py::object& colTokens) {
  const std::string folder = pathArgument(dir, "dir");
  writeAttentionFolder(folder, checkedMaps(attn, rowTokens, colTokens));
  return folder;
}

// The str subclass view(out=) returns: the PNG's path, which IPython and Jupyter show as the
// picture itself (they ask objects for _repr_png_).
py::object pngFileType(py::module_& m) {
  py::dict body;
  body["__module__"] = "vkattn";
  body["__doc__"] = "The path of a PNG that vkattn.view wrote (a str); notebooks show the picture.";
  body["__slots__"] = py::tuple();
  py::object type = py::module_::import("builtins").attr("type")("PngFile", py::make_tuple(py::str().get_type()), body);
  type.attr("_repr_png_") = py::cpp_function(
      [](const py::object& self) -> py::object {
        try {
          return py::module_::import("pathlib").attr("Path")(self).attr("read_bytes")();
        } catch (const py::error_already_set&) {
          return py::none();  // the file is gone: the notebook shows the path
        }
      },
      py::is_method(type), py::name("_repr_png_"));
  m.attr("PngFile") = type;
  return type;
}

py::object view(const py::object& attn, const py::object& rowTokens, const py::object& colTokens, const py::object& out,
                const py::object& layer, const py::object& head, const py::object& heads, const py::object& reduce,
                const py::object& colormap, bool log, bool stretch, bool causal, const py::object& title,
                const py::object& size, const py::object& layout, const py::object& viewer) {
  const AttentionMaps maps = checkedMaps(attn, rowTokens, colTokens);
  const ViewChoices choices =
      viewChoices(maps, layer, head, heads, reduce, colormap, log, stretch, causal, title, size);
  if (out.is_none() && !layout.is_none()) throw py::value_error("'layout' describes a PNG: give out= too");
  const std::string png = out.is_none() ? std::string() : pathArgument(out, "out");
  const std::string sidecar = layout.is_none() ? std::string() : pathArgument(layout, "layout");
  std::vector<std::string> command = {viewerExecutable(viewer)};

  TemporaryFolder folder;
  writeAttentionFolder(folder.path(), maps);
  command.insert(command.end(), {"--source", "npy:" + folder.path()});
  for (std::string& flag : viewerFlags(choices, maps, !png.empty())) command.push_back(std::move(flag));
  if (png.empty()) {
    command.push_back("--print-ready");
    return openWindow(command, folder);
  }
  command.insert(command.end(), {"--export", png});
  if (!sidecar.empty()) command.insert(command.end(), {"--layout", sidecar});
  runToEnd(command);
  return py::module_::import("vkattn").attr("PngFile")(png);
}

}  // namespace

void bindViewer(py::module_& m) {
  pngFileType(m);
  bindViewerWindow(m);
  m.def("save_attention", &saveAttention, py::arg("dir"), py::arg("attn"), py::arg("row_tokens"),
        py::arg("col_tokens") = py::none(),
        "Writes attn ([rows, cols], [heads, rows, cols] or [layers, heads, rows, cols]) and its tokens in the "
        "viewer's folder format: attention.npy, row_tokens.txt, col_tokens.txt (vkattn-viewer --source npy:DIR). "
        "col_tokens defaults to row_tokens for square maps. Tokens are any str; lone surrogates (bytes that "
        "surrogateescape kept) are written as visible escapes, '\\udcff' as '\\xff'. Returns the folder.");
  m.def("view", &view, py::arg("attn"), py::arg("row_tokens"), py::arg("col_tokens") = py::none(),
        py::arg("out") = py::none(), py::kw_only(), py::arg("layer") = py::none(), py::arg("head") = py::none(),
        py::arg("heads") = py::none(), py::arg("reduce") = py::none(), py::arg("colormap") = py::none(),
        py::arg("log") = false, py::arg("stretch") = false, py::arg("causal") = false, py::arg("title") = py::none(),
        py::arg("size") = py::none(), py::arg("layout") = py::none(), py::arg("viewer") = py::none(),
        "Shows attn (as save_attention takes it) in vkattn-viewer. Without out=, opens a window and returns a "
        "vkattn.ViewerWindow once it shows (raising, with the viewer's message, when it cannot: no display, say); "
        "with out=PATH, renders the figure headless to that PNG and returns its path as a vkattn.PngFile (a str "
        "that notebooks show as the picture); layout=PATH adds the JSON record of what was drawn. Either way: "
        "layer, head (one head) or heads ('mean' or 'max' of all), reduce ('max' or 'mean': how bins of several "
        "cells are coloured), colormap ('viridis', 'magma', 'grey', 'diverging'), log, stretch, causal (the "
        "cells past the diagonal hatched as masked), title and "
        "size=(width, height) (default 1600 x 1000, a figure of a long narrow map less along its short side).");
}

}  // namespace vkattn::python
