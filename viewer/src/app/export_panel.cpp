#include "app/export_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <utility>

#include "app/panel_colours.hpp"

namespace vkattn::viewer {
namespace {

constexpr int kMinPixels = 64, kMaxPixels = 8192;

}  // namespace

ExportPanel::ExportPanel() : m_path(1024, '\0') {
  const std::string initial = "vkattn_view.png";
  std::copy(initial.begin(), initial.end(), m_path.begin());
}

void ExportPanel::draw() {
  ImGui::SetNextItemWidth(-70);
  ImGui::InputText("file", m_path.data(), m_path.size());
  ImGui::SetNextItemWidth(-70);
  ImGui::InputInt2("size", m_size);
  if (ImGui::Button("export PNG")) {
    m_request = ExportRequest{m_path.data(), static_cast<uint32_t>(std::clamp(m_size[0], kMinPixels, kMaxPixels)),
                              static_cast<uint32_t>(std::clamp(m_size[1], kMinPixels, kMaxPixels))};
  }
  if (!m_status.empty()) {
    ImGui::SameLine();
    ImGui::TextColored(kDimText, "%s", m_status.c_str());
  }
}

std::optional<ExportRequest> ExportPanel::take() {
  return std::exchange(m_request, std::nullopt);
}

}  // namespace vkattn::viewer
