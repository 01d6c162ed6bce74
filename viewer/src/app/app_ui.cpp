// App's ImGui frame: the control panel on the left, the map (or the overview of all heads) on
// the right, hover read-outs and the export button.
#include <algorithm>
#include <cinttypes>
#include <cmath>

#include "app/app.hpp"
#include "app/panel_colours.hpp"

namespace vkattn::viewer {
namespace {

const ImVec4 kError(1.0f, 0.45f, 0.4f, 1.0f);
const ImVec4 kWarning(0.95f, 0.6f, 0.2f, 1.0f);

// Wraps text at the panel's visible right edge. (Wrap position 0 means the edge of the content,
// which in a window that scrolls sideways is as wide as its widest line: wrapped text would then
// keep the panel wider than the screen.)
void pushPanelTextWrap() {
  ImGui::PushTextWrapPos(ImGui::GetWindowContentRegionMax().x + ImGui::GetScrollX());
}

bool contains(const std::vector<int64_t>& list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

void App::toggleHidden(int64_t column) {
  auto& hidden = m_selection.hiddenColumns;
  if (auto it = std::find(hidden.begin(), hidden.end(), column); it != hidden.end())
    hidden.erase(it);
  else
    hidden.push_back(column);
  m_thumbnails.invalidate();
  rebuildMap();
}

void App::drawLoading() {
  // Nothing to draw yet: say what is happening, for how long, and keep the frame alive.
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->Pos);
  ImGui::SetNextWindowSize(viewport->Size);
  const ImGuiWindowFlags flags =
      ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings;
  if (ImGui::Begin("loading", nullptr, flags)) {
    const float width = std::min(560.0f, viewport->Size.x - 40.0f);
    ImGui::SetCursorPos(ImVec2(0.5f * (viewport->Size.x - width), 0.4f * viewport->Size.y));
    ImGui::BeginGroup();
    ImGui::Text("vkattn viewer: %s", m_runner->name().c_str());
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    const std::string stage = m_runner->progress();
    ImGui::TextColored(kDimText, "%s...", stage.empty() ? "starting" : stage.c_str());
    ImGui::PopTextWrapPos();
    // No fraction is known (kernel compilation and model loading do not report one): a bar that
    // sweeps, and the seconds so far.
    const double seconds = m_runner->secondsWorking();
    const float phase = static_cast<float>(std::fmod(seconds, 1.6) / 1.6);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList& list = *ImGui::GetWindowDrawList();
    list.AddRectFilled(p, ImVec2(p.x + width, p.y + 8), IM_COL32(60, 60, 70, 255), 3.0f);
    const float x0 = p.x + width * std::max(0.0f, phase - 0.25f), x1 = p.x + width * std::min(1.0f, phase + 0.05f);
    list.AddRectFilled(ImVec2(x0, p.y), ImVec2(x1, p.y + 8), IM_COL32(90, 160, 230, 255), 3.0f);
    ImGui::Dummy(ImVec2(width, 12));
    ImGui::TextColored(kDimText, "%.1f s", seconds);
    ImGui::EndGroup();
  }
  ImGui::End();
}

void App::drawUi(double now) {
  m_images.clear();  // the last frame's bin images are drawn (and any export since)
  if (!m_loaded) {
    drawLoading();
    return;
  }
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  // Small windows: the panel takes at most half and scrolls rather than clipping its controls.
  const float panelWidth = std::clamp(viewport->Size.x * 0.28f, std::min(250.0f, 0.5f * viewport->Size.x), 380.0f);
  const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoSavedSettings;
  ImGui::SetNextWindowPos(viewport->Pos);
  ImGui::SetNextWindowSize(ImVec2(panelWidth, viewport->Size.y));
  if (ImGui::Begin("vkattn viewer", nullptr, fixed | ImGuiWindowFlags_HorizontalScrollbar)) {
    pushPanelTextWrap();  // every line of text in the panel
    drawControls(now);
    ImGui::PopTextWrapPos();
  }
  ImGui::End();

  ImGui::SetNextWindowPos(ImVec2(viewport->Pos.x + panelWidth, viewport->Pos.y));
  ImGui::SetNextWindowSize(ImVec2(viewport->Size.x - panelWidth, viewport->Size.y));
  if (ImGui::Begin("Attention", nullptr, fixed | ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoTitleBar)) {
    if (ImGui::BeginTabBar("views")) {
      const ImGuiTabItemFlags mapFlags = m_openMap ? ImGuiTabItemFlags_SetSelected : 0;
      m_openMap = false;
      if (ImGui::BeginTabItem("Map", nullptr, mapFlags)) {
        drawMapView();
        ImGui::EndTabItem();
      }
      const ImGuiTabItemFlags overviewFlags = m_openOverview ? ImGuiTabItemFlags_SetSelected : 0;
      m_openOverview = false;
      if (ImGui::BeginTabItem("All layers x heads", nullptr, overviewFlags)) {
        ImGui::BeginChild("overview", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
        if (m_selection.kind < m_set.kinds.size()) {
          const auto clicked = m_thumbnails.draw(m_set.kinds[m_selection.kind], m_selection.hiddenColumns,
                                                 m_displaySettings.colormap, m_selection.a, 96.0f);
          if (clicked) {
            m_selection.a = *clicked;
            m_selection.rollout = false;
            m_region = {};
            m_openMap = true;
            rebuildMap();
          }
        }
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
  }
  ImGui::End();
}

void App::drawControls(double now) {
  ImGui::TextColored(kDimText, "device: %s", m_ctx.info().name.c_str());
  ImGui::TextColored(kDimText, "source: %s", m_runner->name().c_str());
  if (m_runner->usesSentence()) {
    ImGui::Spacing();
    ImGui::TextUnformatted(m_runner->name().rfind("gguf:", 0) == 0 ? "Prompt" : "English sentence");
    ImGui::SetNextItemWidth(-1);
    const bool enter = ImGui::InputText("##sentence", m_sentenceBuffer.data(), m_sentenceBuffer.size(),
                                        ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::IsItemEdited()) {
      m_pendingSince = now;
      ++m_textsVersion;  // typed characters need glyphs too
    }
    if (enter) m_pendingSince = now - 1e9;  // Enter: now, without waiting for typing to settle
  }
  if (!m_set.output.empty()) {
    ImGui::TextUnformatted(m_stale ? "Output (stale: for the sentence before)" : "Output");
    if (m_stale)
      ImGui::TextColored(kDimText, "%s", m_set.output.c_str());
    else
      ImGui::TextUnformatted(m_set.output.c_str());
  }
  ImGui::TextColored(kDimText, "%s", m_set.status.c_str());
  if (!m_set.warning.empty()) ImGui::TextColored(kWarning, "warning: %s", m_set.warning.c_str());
  if (m_runner->working())
    ImGui::TextColored(kDimText, "%s... %.1f s", m_runner->progress().c_str(), m_runner->secondsWorking());
  else if (m_pendingSince >= 0.0)
    ImGui::TextColored(kDimText, "(updating when typing pauses)");
  if (m_stale) ImGui::TextColored(kError, "the map is stale: it shows the last sentence that worked");
  if (!m_error.empty()) ImGui::TextColored(kError, "%s", m_error.c_str());
  if (!m_heatmap.lastError().empty()) ImGui::TextColored(kError, "%s", m_heatmap.lastError().c_str());

  ImGui::Separator();
  drawSelectionControls();
  ImGui::Separator();
  drawDisplayControls();
  ImGui::Separator();
  drawHoverInfo();
}

void App::drawSelectionControls() {
  const SelectionChange change = drawSelectionPanel(m_set, m_selection);
  if (change == SelectionChange::Kind) {
    m_region = {};
    m_thumbnails.invalidate();
  }
  if (change != SelectionChange::None) rebuildMap();
}

void App::drawDisplayControls() {
  drawDisplaySettings(m_displaySettings, m_display.signedValues);

  if (m_selection.kind < m_set.kinds.size()) {
    const int64_t cols = m_set.kinds[m_selection.kind].cols();
    const auto& hidden = m_selection.hiddenColumns;
    bool first = std::find(hidden.begin(), hidden.end(), 0) != hidden.end();
    bool last = std::find(hidden.begin(), hidden.end(), cols - 1) != hidden.end();
    if (ImGui::Checkbox("hide first token", &first)) toggleHidden(0);
    ImGui::SameLine();
    if (cols > 1 && ImGui::Checkbox("hide last (<eos>)", &last)) toggleHidden(cols - 1);
    ImGui::TextColored(kDimText, "right-click a column to hide it (%zu hidden)", m_selection.hiddenColumns.size());
    // Always there (disabled when nothing is hidden), so hiding a column moves nothing below.
    ImGui::BeginDisabled(hidden.empty());
    if (ImGui::SmallButton("show all columns")) {
      m_selection.hiddenColumns.clear();
      m_thumbnails.invalidate();
      rebuildMap();
    }
    ImGui::EndDisabled();
    ImGui::TextColored(kDimText, "%s", m_display.normalisation.c_str());
  }
  if (ImGui::Button("reset zoom")) m_region = {};
  if (m_layout.valid) {
    ImGui::SameLine();
    ImGui::TextColored(kDimText, "rows %.1f-%.1f, cols %.1f-%.1f%s", m_layout.region.rowBegin, m_layout.region.rowEnd,
                       m_layout.region.colBegin, m_layout.region.colEnd, m_layout.grid.reduced ? " (reduced)" : "");
  }

  ImGui::Spacing();
  m_export.draw();
}

void App::drawHoverInfo() {
  if (!m_hover) {
    ImGui::TextColored(kDimText,
                       "hover the map: weight, tokens, row entropy and argmax\nwheel: zoom, drag: pan, "
                       "double-click: whole map");
    return;
  }
  const auto [row, col] = *m_hover;
  // The hovered row alone comes from the device (1 x cols; the statistics read only it).
  const Matrix map = m_heatmap.row(row);
  if (map.cols == 0) return;
  auto token = [](const std::vector<std::string>& tokens, int64_t i) {
    return i < static_cast<int64_t>(tokens.size()) ? tokens[static_cast<std::size_t>(i)] : std::to_string(i);
  };
  const int64_t best = rowArgmax(map, 0);
  ImGui::Text("row %" PRId64 " '%s'", row, token(m_display.rowTokens, row).c_str());
  if (contains(m_display.unknownRows, row)) ImGui::TextColored(kWarning, "  unknown to the model: read as <unk>");
  ImGui::Text("col %" PRId64 " '%s'", col, token(m_display.colTokens, col).c_str());
  if (contains(m_display.unknownCols, col)) ImGui::TextColored(kWarning, "  unknown to the model: read as <unk>");
  if (m_display.causal && col > row)
    ImGui::TextColored(kDimText, "masked: the causal mask hides later tokens (no weight, not a zero weight)");
  else if (contains(m_display.hiddenColumns, col))
    ImGui::TextColored(kDimText, "hidden column (its weight is left out; %s)",
                       m_display.renormalised ? "rows renormalised" : "values as given");
  else
    ImGui::Text("%s %.6g", m_display.signedValues ? "difference" : "weight", static_cast<double>(map.at(0, col)));
  if (!m_display.signedValues)
    ImGui::Text("row entropy %.3f bits (max %.3f)", rowEntropy(map, 0), std::log2(static_cast<double>(map.cols)));
  ImGui::Text("row argmax: col %" PRId64 " '%s' (%.4g)", best, token(m_display.colTokens, best).c_str(),
              static_cast<double>(map.at(0, best)));
}

void App::drawMapView() {
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (avail.x < 16 || avail.y < 16) return;
  ImGui::InvisibleButton("heatmap", avail, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  const bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
  ImDrawList& list = *ImGui::GetWindowDrawList();
  m_layout = m_heatmap.draw(list, m_font ? m_font : ImGui::GetFont(), p0, ImVec2(p0.x + avail.x, p0.y + avail.y),
                            m_region, colorScale(), style());
  m_hover.reset();
  if (!m_layout.valid) return;
  const ImGuiIO& io = ImGui::GetIO();
  const FigureLayout& l = m_layout;
  const Region r = l.region;
  if (hovered && io.MouseWheel != 0.0f) {
    // Zoom about the cell under the cursor, which stays put.
    zoomAt((io.MousePos.x - l.heatmapMin.x) / (l.heatmapMax.x - l.heatmapMin.x),
           (io.MousePos.y - l.heatmapMin.y) / (l.heatmapMax.y - l.heatmapMin.y), io.MouseWheel);
  } else if (active && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
    panBy(io.MouseDelta.x / (l.heatmapMax.x - l.heatmapMin.x), io.MouseDelta.y / (l.heatmapMax.y - l.heatmapMin.y));
  }
  if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) m_region = {};
  if (!hovered) return;
  m_hover = m_heatmap.cellAt(l, io.MousePos);
  if (!m_hover) return;
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
    toggleHidden(m_hover->col);
    return;
  }
  // Outline the hovered row and cell.
  const float y0 = l.heatmapMin.y + static_cast<float>(m_hover->row - r.rowBegin) * l.cellHeight;
  const float x0 = l.heatmapMin.x + static_cast<float>(m_hover->col - r.colBegin) * l.cellWidth;
  list.PushClipRect(l.heatmapMin, l.heatmapMax, true);
  list.AddRect(ImVec2(l.heatmapMin.x, y0), ImVec2(l.heatmapMax.x, y0 + l.cellHeight), IM_COL32(255, 255, 255, 110));
  list.AddRect(ImVec2(x0, y0), ImVec2(x0 + l.cellWidth, y0 + l.cellHeight), IM_COL32(255, 255, 255, 255), 0, 0, 2.0f);
  list.PopClipRect();
  // The tooltip opens on the side away from the colour bar (at the map's right) when it would
  // reach it.
  constexpr float kTooltipWidth = 340.0f;
  const bool leftOfCursor = io.MousePos.x + 20.0f + kTooltipWidth > l.colorBarMin.x;
  ImGui::SetNextWindowPos(ImVec2(leftOfCursor ? io.MousePos.x - 16.0f : io.MousePos.x + 20.0f, io.MousePos.y + 20.0f),
                          ImGuiCond_Always, ImVec2(leftOfCursor ? 1.0f : 0.0f, 0.0f));
  ImGui::BeginTooltip();
  drawHoverInfo();
  ImGui::EndTooltip();
}

}  // namespace vkattn::viewer
