// The control panel's export row: a PNG's file name and size, the request the window loop takes,
// and what became of the last one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vkattn::viewer {

struct ExportRequest {
  std::string path;
  uint32_t width = 1600;
  uint32_t height = 1000;
};

class ExportPanel {
 public:
  ExportPanel();
  // The file and size fields and the "export PNG" button (between ImGui::Begin and End).
  void draw();
  // The request the button made, once.
  std::optional<ExportRequest> take();
  void setStatus(std::string status) { m_status = std::move(status); }

 private:
  std::vector<char> m_path;
  int m_size[2] = {1600, 1000};
  std::optional<ExportRequest> m_request;
  std::string m_status;
};

}  // namespace vkattn::viewer
