// vkattn-viewer run from Python: found, given a temporary folder of maps that it reads, run
// headless to write a PNG, or opened as a window whose handle reports its failure as a Python
// exception carrying the viewer's own message (ValueError for bad input, exit status 2;
// RuntimeError otherwise: no display, a Vulkan failure, validation messages).
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

namespace vkattn::python {

namespace py = pybind11;

// The viewer: `viewer`, else $VKATTN_VIEWER, else the one built beside this module, else PATH.
std::string viewerExecutable(const py::object& viewer);

// A folder that is removed when this goes out of scope, on success and on every error, unless
// released (a window still reading it then owns it).
class TemporaryFolder {
 public:
  TemporaryFolder();
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  ~TemporaryFolder();
  const std::string& path() const { return m_path; }
  std::string release() { return std::exchange(m_path, std::string()); }

 private:
  std::string m_path;
};

// Runs `command` (a headless viewer) to the end; raises when it fails.
void runToEnd(const std::vector<std::string>& command);

// Starts `command` (a window, with --print-ready) and waits until the window shows or the viewer
// ends: a viewer that ends in failure before its window shows raises here. Otherwise returns a
// vkattn.ViewerWindow that owns `folder` from then on and removes it when the viewer ends.
py::object openWindow(const std::vector<std::string>& command, TemporaryFolder& folder);

void bindViewerWindow(py::module_& m);

}  // namespace vkattn::python
