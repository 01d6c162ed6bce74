// The viewer's state and its ImGui frame: the source and its latest maps, what is selected, the
// colour scale, zoom, hover and export requests. Owned by the window loop or the headless run;
// lives inside one ImGui context and uses the vkattn context for all GPU work.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli_args.hpp"
#include "render/colormap.hpp"
#include "render/downsample.hpp"
#include "render/heatmap_view.hpp"
#include "render/thumbnails.hpp"
#include "sources/attention_source.hpp"
#include "sources/selection.hpp"

namespace vkattn::viewer {

struct ExportRequest {
  std::string path;
  uint32_t width = 1600;
  uint32_t height = 1000;
};

class App {
 public:
  // Computes the source's maps for args.sentence and applies the selection flags. Throws
  // InvalidArgument naming the flag (--view, --layer, --head, --minus, --hide) when out of range.
  App(Context& ctx, std::unique_ptr<AttentionSource> source, const ViewerArgs& args);

  // Before ImGui::NewFrame: re-computes when the edited sentence has settled.
  void update(double now);
  // Texts whose glyphs the font atlas needs (tokens, sentence, output), and a counter that
  // changes whenever they may have, so that the loop does not gather them every frame.
  std::vector<std::string> texts() const;
  uint64_t textsVersion() const noexcept { return m_textsVersion; }
  void setFont(ImFont* font) { m_font = font; }

  // The frame's windows, between ImGui::NewFrame and ImGui::Render.
  void drawUi(double now);
  // The figure alone (export): white paper, dark text, at `size`.
  FigureLayout drawFigure(ImDrawList& list, ImVec2 size);

  const FigureLayout& mainLayout() const noexcept { return m_layout; }
  const DisplayMap& displayMap() const noexcept { return m_display; }
  ColorScale colorScale() const;
  std::string sourceName() const { return m_source->name(); }
  std::string viewId() const;
  std::string windowTitle() const;
  // True while an edit waits to be computed: the loop polls instead of sleeping.
  bool busy() const noexcept { return m_pendingSince >= 0.0; }
  std::optional<ExportRequest> takeExportRequest();
  void setExportStatus(std::string status) { m_exportStatus = std::move(status); }

 private:
  void recompute();
  void rebuildMap();
  void drawControls(double now);
  void drawSelectionControls();
  void drawDisplayControls();
  void drawMapView();
  void drawHoverInfo();
  void toggleHidden(int64_t column);
  FigureStyle style() const;

  Context& m_ctx;
  std::unique_ptr<AttentionSource> m_source;
  std::string m_sentence;
  std::vector<char> m_sentenceBuffer;
  double m_pendingSince = -1.0;  // when the text box last changed; -1: nothing pending
  AttentionSet m_set;
  Selection m_selection;
  DisplayMap m_display;
  uint64_t m_version = 0;
  uint64_t m_textsVersion = 1;
  GpuDownsampler m_gpu;
  HeatmapView m_heatmap;
  Thumbnails m_thumbnails;
  Colormap m_colormap;
  Scale m_scale;
  Reduction m_reduction = Reduction::Max;
  Region m_region;
  FigureLayout m_layout;
  std::optional<Cell> m_hover;
  ImFont* m_font = nullptr;
  std::string m_error;
  bool m_openOverview = false;  // select the overview tab on the next frame
  bool m_openMap = false;       // select the map tab on the next frame (a thumbnail was clicked)
  std::vector<char> m_exportPath;
  int m_exportSize[2] = {1600, 1000};
  std::optional<ExportRequest> m_exportRequest;
  std::string m_exportStatus;
};

}  // namespace vkattn::viewer
