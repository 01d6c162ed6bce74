#include "viewer_process.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace vkattn::python {
namespace {

namespace fs = std::filesystem;

// How long openWindow waits for the first frame before it hands back the handle anyway (a
// failure after that surfaces from the handle).
constexpr double kStartSeconds = 60.0;

// The viewer's stderr as one message: each line's "vkattn-viewer: " dropped (the exception says
// who failed), surrounding blank space trimmed.
std::string viewerMessage(const std::string& stderrText) {
  static const std::string kPrefix = "vkattn-viewer: ";
  std::istringstream in(stderrText);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind(kPrefix, 0) == 0) line.erase(0, kPrefix.size());
    if (!line.empty()) out += (out.empty() ? "" : "\n") + line;
  }
  return out;
}

// Raises for a viewer that ended with `status`: ValueError for exit status 2 (its input was
// wrong), RuntimeError otherwise, either with what the viewer said (and `hint`, for the latter).
[[noreturn]] void raiseFailure(int status, const std::string& stderrText, const std::string& hint = {}) {
  const std::string said = viewerMessage(stderrText);
  std::string message = status < 0 ? "vkattn-viewer failed (ended by signal " + std::to_string(-status) + ")"
                                   : "vkattn-viewer failed (exit status " + std::to_string(status) + ")";
  if (!said.empty()) message += ": " + said;
  if (status == 2) throw py::value_error(message);
  throw std::runtime_error(hint.empty() ? message : message + "\n" + hint);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What a window's handle and the thread that watches the viewer share. Touched only with the GIL
// held (the thread is a Python thread).
struct WindowState {
  py::object process;  // subprocess.Popen, stdout piped, stderr to logPath
  py::object ready;    // threading.Event: the viewer said its first frame is shown
  py::object ended;    // threading.Event: the viewer ended, its stderr is read and its folder gone
  std::string folder, logPath;
  std::string stderrText;
  bool closing = false;  // close() ended it: its exit status is no failure
};

// The watching thread: reads the viewer's stdout for "ready" until it ends, then keeps its
// stderr, removes its folder and says so, whatever went wrong on the way.
void watch(const std::shared_ptr<WindowState>& s) {
  // Nothing here has anyone to report to: the handle reads the exit status and stderr.
  try {
    for (const py::handle line : s->process.attr("stdout"))
      if (py::str(line).cast<std::string>().rfind("ready", 0) == 0) s->ready.attr("set")();
  } catch (const std::exception&) {
  }
  try {
    s->process.attr("stdout").attr("close")();
  } catch (const std::exception&) {
  }
  s->process.attr("wait")();
  s->stderrText = readFile(s->logPath);
  py::module_::import("shutil").attr("rmtree")(s->folder, py::arg("ignore_errors") = true);
  s->ended.attr("set")();
}

// A window's handle: wait(), poll() and close() as on a process, but a viewer that failed raises
// with its message instead of returning a bare exit status.
class ViewerWindow {
 public:
  explicit ViewerWindow(std::shared_ptr<WindowState> state) : m_state(std::move(state)) {}

  // The exit status once ended (0, or the signal close() sent); raises for a failure.
  py::object outcome(const std::string& hint = {}) const {
    const py::object status = m_state->process.attr("returncode");
    const int code = status.cast<int>();
    if (code != 0 && !m_state->closing) raiseFailure(code, m_state->stderrText, hint);
    return status;
  }
  py::object wait(const py::object& timeout) const {
    if (!m_state->ended.attr("wait")(timeout).cast<bool>()) {
      py::object expired =
          py::module_::import("subprocess").attr("TimeoutExpired")(m_state->process.attr("args"), timeout);
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(expired.ptr())), expired.ptr());
      throw py::error_already_set();
    }
    return outcome();
  }
  py::object poll() const { return m_state->ended.attr("is_set")().cast<bool>() ? outcome() : py::none(); }
  void close() {
    if (!m_state->ended.attr("is_set")().cast<bool>()) {
      m_state->closing = true;
      m_state->process.attr("terminate")();
    }
    wait(py::none());
  }
  int pid() const { return m_state->process.attr("pid").cast<int>(); }
  py::object returncode() const { return m_state->process.attr("returncode"); }
  bool shown() const { return m_state->ready.attr("is_set")().cast<bool>(); }

 private:
  std::shared_ptr<WindowState> m_state;
};

}  // namespace

std::string viewerExecutable(const py::object& viewer) {
  if (!viewer.is_none()) return py::str(py::module_::import("os").attr("fspath")(viewer)).cast<std::string>();
  if (const char* env = std::getenv("VKATTN_VIEWER"); env && *env) return env;
#ifdef VKATTN_VIEWER_PATH
  if (fs::exists(VKATTN_VIEWER_PATH)) return VKATTN_VIEWER_PATH;
#endif
  // `pip install .` puts it in the environment's scripts, which need not be on PATH.
  const fs::path scripts = py::module_::import("sysconfig").attr("get_path")("scripts").cast<std::string>();
  if (fs::exists(scripts / "vkattn-viewer")) return (scripts / "vkattn-viewer").string();
  py::object found = py::module_::import("shutil").attr("which")("vkattn-viewer");
  if (found.is_none())
    throw py::value_error("vkattn-viewer was not found beside this Python (" + scripts.string() +
                          "), where `pip install .` puts it, nor on PATH; or set VKATTN_VIEWER to its path");
  return found.cast<std::string>();
}

TemporaryFolder::TemporaryFolder()
    : m_path(py::module_::import("tempfile").attr("mkdtemp")("", "vkattn_view_").cast<std::string>()) {}

TemporaryFolder::~TemporaryFolder() {
  std::error_code ec;  // nothing to report from a destructor: a folder left behind is all it can cost
  if (!m_path.empty()) fs::remove_all(m_path, ec);
}

void runToEnd(const std::vector<std::string>& command) {
  py::object result = py::module_::import("subprocess")
                          .attr("run")(command, py::arg("capture_output") = true, py::arg("text") = true,
                                       py::arg("errors") = "replace");
  const int status = result.attr("returncode").cast<int>();
  if (status != 0) raiseFailure(status, result.attr("stderr").cast<std::string>());
}

py::object openWindow(const std::vector<std::string>& command, TemporaryFolder& folder) {
  auto state = std::make_shared<WindowState>();
  state->logPath = (fs::path(folder.path()) / "viewer.log").string();
  py::module_ subprocess = py::module_::import("subprocess");
  py::object log = py::module_::import("builtins").attr("open")(state->logPath, "w");
  try {
    state->process = subprocess.attr("Popen")(command, py::arg("stdin") = subprocess.attr("DEVNULL"),
                                              py::arg("stdout") = subprocess.attr("PIPE"), py::arg("stderr") = log,
                                              py::arg("text") = true, py::arg("errors") = "replace");
  } catch (...) {
    log.attr("close")();
    throw;
  }
  log.attr("close")();  // the viewer has its own descriptor
  state->folder = folder.release();
  py::module_ threading = py::module_::import("threading");
  state->ready = threading.attr("Event")();
  state->ended = threading.attr("Event")();
  threading
      .attr("Thread")(py::arg("target") = py::cpp_function([state] { watch(state); }),
                      py::arg("name") = "vkattn-viewer watcher", py::arg("daemon") = true)
      .attr("start")();

  ViewerWindow window(state);
  py::object clock = py::module_::import("time").attr("monotonic");
  const double deadline = clock().cast<double>() + kStartSeconds;
  while (!state->ready.attr("wait")(0.05).cast<bool>() && !state->ended.attr("is_set")().cast<bool>() &&
         clock().cast<double>() < deadline) {
  }
  if (state->ended.attr("is_set")().cast<bool>())  // a window that never showed raises here
    window.outcome("(vkattn.view(..., out='figure.png') draws the figure without a window)");
  return py::cast(std::move(window));
}

void bindViewerWindow(py::module_& m) {
  py::class_<ViewerWindow>(m, "ViewerWindow",
                           "A vkattn-viewer window that vkattn.view opened. wait() and poll() return its exit status "
                           "(None from poll while it is open) and raise, with the viewer's message, when it failed: "
                           "ValueError for bad input, RuntimeError otherwise. close() ends it.")
      .def("wait", &ViewerWindow::wait, py::arg("timeout") = py::none(),
           "Waits until the window is closed (at most timeout seconds, else subprocess.TimeoutExpired); returns "
           "its exit status or raises for a failure.")
      .def("poll", &ViewerWindow::poll, "None while the window is open; then as wait().")
      .def("close", &ViewerWindow::close, "Ends the viewer and waits for it.")
      .def_property_readonly("pid", &ViewerWindow::pid)
      .def_property_readonly("returncode", &ViewerWindow::returncode)
      .def_property_readonly("shown", &ViewerWindow::shown, "True once the window has shown its first frame.")
      .def("__repr__", [](const ViewerWindow& w) {
        const py::object code = w.returncode();
        return "<vkattn.ViewerWindow pid " + std::to_string(w.pid()) +
               (code.is_none() ? std::string(", open>") : ", ended with " + py::str(code).cast<std::string>() + ">");
      });
}

}  // namespace vkattn::python
