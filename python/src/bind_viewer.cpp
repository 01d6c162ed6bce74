// view() and save_attention(): NumPy attention maps in the viewer's folder format (attention.npy
// with row_tokens.txt and col_tokens.txt, what `--source npy:DIR` opens), and vkattn-viewer run
// on them: in a window, or headless to write a PNG of the figure.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"

namespace vkattn::python {
namespace {

namespace fs = std::filesystem;

// Tokens for one axis: a sequence of str of length n without line breaks.
std::vector<std::string> tokenList(const py::object& tokens, py::ssize_t n, const char* name) {
  if (py::isinstance<py::str>(tokens) || !py::isinstance<py::sequence>(tokens))
    throw py::type_error(std::string("'") + name + "' must be a sequence of str");
  std::vector<std::string> out;
  for (const py::handle item : tokens) {
    if (!py::isinstance<py::str>(item)) throw py::type_error(std::string("'") + name + "' must hold str only");
    out.push_back(item.cast<std::string>());
    if (out.back().find_first_of("\r\n") != std::string::npos)
      throw py::value_error(std::string("'") + name + "' token " + std::to_string(out.size() - 1) +
                            " contains a line break");
  }
  if (static_cast<py::ssize_t>(out.size()) != n)
    throw py::value_error(std::string("'") + name + "' has " + std::to_string(out.size()) + " tokens; attn has " +
                          std::to_string(n) + (std::string(name) == "row_tokens" ? " rows" : " columns"));
  return out;
}

void writeLines(const fs::path& file, const std::vector<std::string>& lines) {
  std::ofstream out(file, std::ios::binary);
  for (const std::string& line : lines) out << line << '\n';
  if (!out) throw py::value_error("cannot write " + file.string());
}

std::string saveAttention(const py::object& dirArg, const py::object& attn, const py::object& rowTokens,
                          const py::object& colTokens) {
  std::string dir;
  try {
    dir = py::module_::import("os").attr("fspath")(dirArg).cast<std::string>();
  } catch (const py::error_already_set&) {
    throw py::type_error("'dir' must be a str or a path");
  } catch (const py::cast_error&) {
    throw py::type_error("'dir' must be a str or a path");
  }
  py::module_ np = py::module_::import("numpy");
  py::array_t<float, py::array::c_style | py::array::forcecast> maps;
  try {
    maps = np.attr("asarray")(attn, "float32");
  } catch (const py::error_already_set&) {
    throw py::type_error("'attn' must be an array of numbers");
  }
  if (maps.ndim() < 2 || maps.ndim() > 4)
    throw py::value_error("'attn' must be [rows, cols], [heads, rows, cols] or [layers, heads, rows, cols], got " +
                          std::to_string(maps.ndim()) + " dimensions");
  const py::ssize_t rows = maps.shape(maps.ndim() - 2), cols = maps.shape(maps.ndim() - 1);
  if (maps.size() == 0) throw py::value_error("'attn' is empty");
  const float* data = maps.data();
  for (py::ssize_t i = 0; i < maps.size(); ++i)
    if (!std::isfinite(data[i])) throw py::value_error("'attn' contains NaN or infinity");
  const auto rowList = tokenList(rowTokens, rows, "row_tokens");
  std::vector<std::string> colList;
  if (colTokens.is_none()) {
    if (rows != cols)
      throw py::value_error("'col_tokens' is needed: attn is " + std::to_string(rows) + " x " + std::to_string(cols));
    colList = rowList;
  } else {
    colList = tokenList(colTokens, cols, "col_tokens");
  }
  const fs::path folder = dir;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (!fs::is_directory(folder)) throw py::value_error("'dir': cannot create " + folder.string());
  np.attr("save")((folder / "attention.npy").string(), maps);
  writeLines(folder / "row_tokens.txt", rowList);
  writeLines(folder / "col_tokens.txt", colList);
  return folder.string();
}

// The viewer: `viewer`, else $VKATTN_VIEWER, else the one built beside this module, else PATH.
std::string viewerExecutable(const py::object& viewer) {
  if (!viewer.is_none()) return viewer.cast<std::string>();
  if (const char* env = std::getenv("VKATTN_VIEWER"); env && *env) return env;
#ifdef VKATTN_VIEWER_PATH
  if (fs::exists(VKATTN_VIEWER_PATH)) return VKATTN_VIEWER_PATH;
#endif
  py::object found = py::module_::import("shutil").attr("which")("vkattn-viewer");
  if (found.is_none())
    throw py::value_error("vkattn-viewer was not found: build it, put it on PATH, or set VKATTN_VIEWER");
  return found.cast<std::string>();
}

// A folder that is removed when this goes out of scope, on success and on every error, unless
// released (a window still reading it then owns it).
class TemporaryFolder {
 public:
  TemporaryFolder()
      : m_path(py::module_::import("tempfile").attr("mkdtemp")("", "vkattn_view_").cast<std::string>()) {}
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  ~TemporaryFolder() {
    std::error_code ec;  // nothing to report from a destructor: a folder left behind is all it can cost
    if (!m_path.empty()) fs::remove_all(m_path, ec);
  }
  const std::string& path() const { return m_path; }
  std::string release() { return std::exchange(m_path, std::string()); }

 private:
  std::string m_path;
};

py::object view(const py::object& attn, const py::object& rowTokens, const py::object& colTokens, const py::object& out,
                std::pair<int, int> size, const py::object& layout, const py::object& viewer) {
  if (size.first < 64 || size.second < 64 || size.first > 8192 || size.second > 8192)
    throw py::value_error("'size' must be (width, height) within 64..8192");
  TemporaryFolder folder;
  const std::string& dir = folder.path();
  saveAttention(py::str(dir), attn, rowTokens, colTokens);
  py::list command;
  command.append(viewerExecutable(viewer));
  command.append("--source");
  command.append("npy:" + dir);
  py::module_ subprocess = py::module_::import("subprocess");
  if (out.is_none()) {
    command.append("--size");
    command.append(std::to_string(size.first) + "x" + std::to_string(size.second));
    // The window runs on (the caller may wait() on it) and reads the folder; a daemon thread removes
    // the folder once the window has closed.
    py::object window = subprocess.attr("Popen")(command);
    const std::string owned = folder.release();
    py::cpp_function removeWhenClosed([window, owned]() {
      window.attr("wait")();
      py::module_::import("shutil").attr("rmtree")(owned, py::arg("ignore_errors") = true);
    });
    py::module_::import("threading")
        .attr("Thread")(py::arg("target") = removeWhenClosed, py::arg("daemon") = true)
        .attr("start")();
    return window;
  }
  const std::string png = py::str(out).cast<std::string>();
  command.append("--export");
  command.append(png);
  command.append("--size");
  command.append(std::to_string(size.first) + "x" + std::to_string(size.second));
  if (!layout.is_none()) {
    command.append("--layout");
    command.append(py::str(layout));
  }
  py::object result = subprocess.attr("run")(command, py::arg("capture_output") = true, py::arg("text") = true);
  if (result.attr("returncode").cast<int>() != 0)
    throw py::value_error("vkattn-viewer failed: " + result.attr("stderr").cast<std::string>());
  return py::str(png);
}

}  // namespace

void bindViewer(py::module_& m) {
  m.def("save_attention", &saveAttention, py::arg("dir"), py::arg("attn"), py::arg("row_tokens"),
        py::arg("col_tokens") = py::none(),
        "Writes attn ([rows, cols], [heads, rows, cols] or [layers, heads, rows, cols]) and its tokens in the "
        "viewer's folder format: attention.npy, row_tokens.txt, col_tokens.txt (vkattn-viewer --source npy:DIR). "
        "col_tokens defaults to row_tokens for square maps. Returns the folder.");
  m.def("view", &view, py::arg("attn"), py::arg("row_tokens"), py::arg("col_tokens") = py::none(),
        py::arg("out") = py::none(), py::kw_only(), py::arg("size") = std::pair<int, int>{1600, 1000},
        py::arg("layout") = py::none(), py::arg("viewer") = py::none(),
        "Opens vkattn-viewer on attn (a NumPy array, as save_attention takes) and returns its process; with "
        "out=PATH, renders the figure headless to that PNG instead (layout=PATH adds the JSON sidecar) and returns "
        "the path.");
}

}  // namespace vkattn::python
