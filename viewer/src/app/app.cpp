#include "app/app.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "vkattn/core/error.hpp"
#include "vkattn/io/utf8.hpp"

namespace vkattn::viewer {
namespace {

constexpr double kSettleSeconds = 0.4;  // re-translate once typing pauses this long

void checkChoice(const AttentionKind& kind, const MapChoice& choice, const std::string& layerFlag,
                 const std::string& headFlag) {
  const auto layers = static_cast<int64_t>(kind.layers.size());
  if (choice.layer >= layers)
    throw InvalidArgument(layerFlag, "layer " + std::to_string(choice.layer) + " is out of range; '" + kind.id +
                                         "' has " + std::to_string(layers) + " layers");
  if (choice.mode == HeadMode::Single && choice.head >= kind.heads())
    throw InvalidArgument(headFlag, "head " + std::to_string(choice.head) + " is out of range; '" + kind.id + "' has " +
                                        std::to_string(kind.heads()) + " heads");
}

std::vector<char> textBuffer(const std::string& text, std::size_t capacity) {
  std::vector<char> buffer(std::max(capacity, text.size() + 1), '\0');
  std::copy(text.begin(), text.end(), buffer.begin());
  return buffer;
}

}  // namespace

App::App(Context& ctx, std::unique_ptr<SourceRunner> runner, const ViewerArgs& args)
    : m_ctx(ctx),
      m_runner(std::move(runner)),
      m_args(args),
      m_lastRequest(args.sentence),
      m_sentenceBuffer(textBuffer(args.sentence, 2048)),
      m_gpu(ctx),
      m_heatmap(&m_gpu, m_images),
      m_thumbnails(ctx, m_images),
      m_displaySettings(displaySettingsFrom(args)),
      m_region(args.region),
      m_openOverview(args.overview) {
  m_runner->request(args.sentence);
  if (auto result = m_runner->poll()) takeResult(std::move(*result));
}

void App::applyFlags(const ViewerArgs& args) {
  if (!args.view.empty()) {
    std::string known;
    bool found = false;
    for (std::size_t i = 0; i < m_set.kinds.size(); ++i) {
      known += i ? ", " + m_set.kinds[i].id : m_set.kinds[i].id;
      if (m_set.kinds[i].id == args.view) {
        m_selection.kind = i;
        found = true;
      }
    }
    if (!found)
      throw InvalidArgument("--view", "'" + args.view + "' is not one of " + m_runner->name() + "'s views: " + known);
  }
  const AttentionKind& kind = m_set.kinds[m_selection.kind];
  m_selection.a = {args.layer.value_or(0), args.head.value_or(0), args.aggregate};
  checkChoice(kind, m_selection.a, "--layer", "--head");
  if (args.rollout && !kind.square())
    throw InvalidArgument("--rollout", "needs a self-attention view; '" + kind.id + "' is " +
                                           std::to_string(kind.rows()) + " x " + std::to_string(kind.cols()));
  m_selection.rollout = args.rollout;
  if (args.minus) {
    m_selection.difference = true;
    m_selection.b = *args.minus;
    checkChoice(kind, m_selection.b, "--minus", "--minus");
  } else {
    m_selection.b = {m_selection.a.layer, std::min<int64_t>(1, kind.heads() - 1), HeadMode::Single};
  }
  for (int64_t c : args.hide) {
    if (c >= kind.cols())
      throw InvalidArgument("--hide", "column " + std::to_string(c) + " is out of range; the map has " +
                                          std::to_string(kind.cols()) + " columns");
    m_selection.hiddenColumns.push_back(c < 0 ? kind.cols() - 1 : c);
  }
}

void App::takeResult(SourceResult result) {
  if (!m_loaded) {
    // The first maps: without them there is nothing to show, so a failure ends the run.
    if (!result.set) {
      if (!result.argument.empty()) throw InvalidArgument(result.argument, result.error);
      throw Error(result.error);
    }
    takeSet(result);
    applyFlags(m_args);
    m_loaded = true;
    rebuildMap();
    if (!m_error.empty()) throw Error(m_error);
    return;
  }
  if (!result.set) {
    // Keep showing the last good maps, marked as not matching the input any more.
    m_error = result.message();
    m_stale = true;
    ++m_version;  // the title changes
    rebuildMap();
    return;
  }
  const bool sameInput = result.sentence == m_sentence;  // a growing source's next step
  takeSet(result);
  m_stale = result.sentence != m_lastRequest;
  m_error.clear();
  clampSelection(m_set, m_selection);
  if (!sameInput) m_region = {};
  m_thumbnails.invalidate();
  rebuildMap();
}

void App::takeSet(SourceResult& result) {
  m_set = std::move(*result.set);
  m_sentence = result.sentence;
  if (m_args.title)
    for (AttentionKind& kind : m_set.kinds) kind.title = *m_args.title;
}

void App::rebuildMap() {
  ++m_textsVersion;  // the title changed, and maybe the tokens
  try {
    m_display = buildDisplayMap(m_ctx, m_set, m_selection);
    if (m_stale) m_display.title = "[stale: shows \"" + m_sentence + "\"] " + m_display.title;
    if (!m_stale) m_error.clear();
  } catch (const std::exception& e) {
    m_error = e.what();
  }
  ++m_version;
  m_range = m_display.range;
  m_heatmap.setMap(&m_display, m_version);
  m_hover.reset();
}

void App::update(double now) {
  if (m_pendingSince >= 0.0 && now - m_pendingSince >= kSettleSeconds) {
    m_pendingSince = -1.0;
    m_lastRequest = m_sentenceBuffer.data();
    m_runner->request(m_lastRequest);
  }
  if (auto result = m_runner->poll()) takeResult(std::move(*result));
}

void App::closeSource() {
  m_runner->stop();
}

void App::zoomAt(float fx, float fy, float steps) {
  if (!m_layout.valid) return;
  const Region r = m_layout.region;
  const double x = r.colBegin + fx * (r.colEnd - r.colBegin), y = r.rowBegin + fy * (r.rowEnd - r.rowBegin);
  const double factor = std::pow(0.8, static_cast<double>(steps));
  m_region = clampRegion({y - (y - r.rowBegin) * factor, y + (r.rowEnd - y) * factor, x - (x - r.colBegin) * factor,
                          x + (r.colEnd - x) * factor},
                         m_display.values.rows, m_display.values.cols);
}

void App::panBy(float fx, float fy) {
  if (!m_layout.valid) return;
  const Region r = m_layout.region;
  const double dx = fx * (r.colEnd - r.colBegin), dy = fy * (r.rowEnd - r.rowBegin);
  m_region = clampRegion({r.rowBegin - dy, r.rowEnd - dy, r.colBegin - dx, r.colEnd - dx}, m_display.values.rows,
                         m_display.values.cols);
}

std::vector<std::string> App::texts() const {
  std::vector<std::string> texts = {m_sentence, m_set.output, m_display.title};
  for (const AttentionKind& kind : m_set.kinds) {  // as the labels draw them
    for (const std::string& token : kind.rowTokens) texts.push_back(io::visibleWhitespace(token));
    for (const std::string& token : kind.colTokens) texts.push_back(io::visibleWhitespace(token));
  }
  texts.emplace_back(m_sentenceBuffer.data());
  return texts;
}

ColorScale App::colorScale() const {
  const ValueRange& range = m_range;
  // Signed maps (A - B) always take the diverging map, so that zero is the neutral middle.
  const Colormap map = m_display.signedValues ? Colormap::Diverging : m_displaySettings.colormap;
  return ColorScale(map, m_displaySettings.scale, range.min >= 0.0f ? 0.0f : range.min, range.max);
}

std::string App::viewId() const {
  return m_selection.kind < m_set.kinds.size() ? m_set.kinds[m_selection.kind].id : std::string();
}

std::string App::windowTitle() const {
  return "vkattn viewer - " + m_runner->name() + (m_loaded ? " - " + viewId() : std::string(" - loading"));
}

FigureStyle App::style() const {
  FigureStyle s;
  s.reduction = m_displaySettings.reduction;
  s.stretch = m_displaySettings.stretch;
  s.labelFont = m_largeFont;
  s.maxLabelPixels = 22.0f;  // labels grow with zoomed cells up to this
  return s;
}

FigureLayout App::drawFigure(ImDrawList& list, ImVec2 size) {
  list.PushClipRect(ImVec2(0, 0), size, false);
  list.PushTextureID(ImGui::GetIO().Fonts->TexID);
  list.AddRectFilled(ImVec2(0, 0), size, IM_COL32(255, 255, 255, 255));
  FigureStyle s = style();
  s.text = IM_COL32(20, 20, 20, 255);
  // Labels grow with the page: a 2560 x 1600 figure gets ~35 px labels, not the window's 16.
  s.maxLabelPixels = std::max(16.0f, std::min(size.x, size.y) / 45.0f);
  const float margin = 24.0f;
  FigureLayout layout = m_heatmap.draw(list, m_font ? m_font : ImGui::GetFont(), ImVec2(margin, margin),
                                       ImVec2(size.x - margin, size.y - margin), m_region, colorScale(), s);
  list.PopTextureID();
  list.PopClipRect();
  return layout;
}

}  // namespace vkattn::viewer
