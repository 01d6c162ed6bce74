// The viewer's state and its ImGui frame: the source and its latest maps, what is selected, the
// colour scale, zoom, hover and export requests. Owned by the window loop or the headless run;
// lives inside one ImGui context and uses the vkattn context for all GPU work.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/cli_args.hpp"
#include "app/display_panel.hpp"
#include "app/export_panel.hpp"
#include "app/selection_panel.hpp"
#include "app/source_runner.hpp"
#include "render/bin_images.hpp"
#include "render/colormap.hpp"
#include "render/downsample.hpp"
#include "render/heatmap_view.hpp"
#include "render/thumbnails.hpp"
#include "sources/attention_source.hpp"
#include "sources/selection.hpp"

namespace vkattn::viewer {

class App {
 public:
  // Asks `runner` for the maps of args.sentence. When they arrive (at once for an inline runner)
  // the selection flags are applied; InvalidArgument naming the flag (--view, --layer, --head,
  // --minus, --hide, or --source for a source that failed) is thrown from the constructor or
  // from update() when they do not fit.
  App(Context& ctx, std::unique_ptr<SourceRunner> runner, const ViewerArgs& args);

  // Before ImGui::NewFrame: takes finished maps, and asks for new ones when the edited sentence
  // has settled.
  void update(double now);
  // Texts whose glyphs the font atlas needs (tokens, sentence, output), and a counter that
  // changes whenever they may have, so that the loop does not gather them every frame.
  std::vector<std::string> texts() const;
  uint64_t textsVersion() const noexcept { return m_textsVersion; }
  void setFonts(ImFont* font, ImFont* large) {
    m_font = font;
    m_largeFont = large;
  }

  // The frame's windows, between ImGui::NewFrame and ImGui::Render.
  void drawUi(double now);
  // The heatmaps drawn since drawUi began (its own and drawFigure's), for the renderer.
  BinImages& binImages() noexcept { return m_images; }
  // The figure alone (export): white paper, dark text, at `size`.
  FigureLayout drawFigure(ImDrawList& list, ImVec2 size);

  bool loaded() const noexcept { return m_loaded; }
  const FigureLayout& mainLayout() const noexcept { return m_layout; }
  const DisplayMap& displayMap() const noexcept { return m_display; }
  ColorScale colorScale() const;
  // How bins of several cells are coloured: the chosen reduction, or the largest magnitude for
  // signed maps (differences).
  Reduction reduction() const noexcept {
    return m_display.signedValues ? Reduction::MaxMagnitude : m_displaySettings.reduction;
  }
  std::string sourceName() const { return m_runner->name(); }
  std::string viewId() const;
  std::string windowTitle() const;
  // True when the map shown is older than the input (the last computation failed).
  bool stale() const noexcept { return m_stale; }
  const std::string& warning() const noexcept { return m_set.warning; }
  // True while an edit waits to be computed or the source works: the loop polls, not sleeps.
  bool busy() const { return m_pendingSince >= 0.0 || m_runner->working(); }
  std::optional<ExportRequest> takeExportRequest() { return m_export.take(); }
  void setExportStatus(std::string status) { m_export.setStatus(std::move(status)); }
  // Zoom and pan as the mouse would: `steps` wheel notches at a map point given as fractions of
  // the heatmap (0..1 each way), or a drag by fractions of it. For measurements and tests.
  void zoomAt(float fx, float fy, float steps);
  void panBy(float fx, float fy);
  // Stops the source's work (before the device it shares closes).
  void closeSource();

 private:
  void applyFlags(const ViewerArgs& args);
  // The maps of `result`, titled by --title when it was given.
  void takeSet(SourceResult& result);
  void takeResult(SourceResult result);
  void rebuildMap();
  void drawLoading();
  void drawControls(double now);
  void drawSelectionControls();
  void drawDisplayControls();
  void drawMapView();
  void drawHoverInfo();
  void toggleHidden(int64_t column);
  FigureStyle style() const;

  Context& m_ctx;
  std::unique_ptr<SourceRunner> m_runner;
  ViewerArgs m_args;  // flags applied when the first maps arrive
  bool m_loaded = false;
  bool m_stale = false;
  std::string m_sentence;     // the sentence of the maps shown
  std::string m_lastRequest;  // the sentence last asked for
  std::vector<char> m_sentenceBuffer;
  double m_pendingSince = -1.0;  // when the text box last changed; -1: nothing pending
  AttentionSet m_set;
  Selection m_selection;
  DisplayMap m_display;
  uint64_t m_version = 0;
  uint64_t m_textsVersion = 1;
  ValueRange m_range;  // of m_display, for the colour scale
  GpuDownsampler m_gpu;
  BinImages m_images;
  HeatmapView m_heatmap;
  Thumbnails m_thumbnails;
  DisplaySettings m_displaySettings;
  Region m_region;
  FigureLayout m_layout;
  std::optional<Cell> m_hover;
  ImFont* m_font = nullptr;
  ImFont* m_largeFont = nullptr;
  std::string m_error;
  bool m_openOverview = false;  // select the overview tab on the next frame
  bool m_openMap = false;       // select the map tab on the next frame (a thumbnail was clicked)
  ExportPanel m_export;
};

}  // namespace vkattn::viewer
