#include "app/selection_panel.hpp"

#include <imgui.h>

#include <cinttypes>

#include "app/panel_colours.hpp"

namespace vkattn::viewer {
namespace {

bool sliderIndex(const char* label, int64_t& value, int64_t count) {
  int v = static_cast<int>(value);
  if (count <= 1) {
    ImGui::Text("%s: %d (of 1)", label, v);
    return false;
  }
  if (!ImGui::SliderInt(label, &v, 0, static_cast<int>(count - 1))) return false;
  value = v;
  return true;
}

bool headModeCombo(const char* label, HeadMode& mode) {
  static const char* kNames[] = {"one head", "mean of heads", "max of heads"};
  int m = static_cast<int>(mode);
  if (!ImGui::Combo(label, &m, kNames, 3)) return false;
  mode = static_cast<HeadMode>(m);
  return true;
}

}  // namespace

SelectionChange drawSelectionPanel(const AttentionSet& set, Selection& selection) {
  SelectionChange change = SelectionChange::None;
  for (std::size_t i = 0; i < set.kinds.size(); ++i) {
    if (i) ImGui::SameLine();
    if (ImGui::RadioButton(set.kinds[i].id.c_str(), selection.kind == i) && selection.kind != i) {
      selection.kind = i;
      selection.hiddenColumns.clear();
      clampSelection(set, selection);
      change = SelectionChange::Kind;
    }
  }
  if (selection.kind >= set.kinds.size()) return change;
  const AttentionKind& kind = set.kinds[selection.kind];
  const auto layers = static_cast<int64_t>(kind.layers.size());
  ImGui::TextColored(kDimText, "%" PRId64 " layers x %" PRId64 " heads, %" PRId64 " x %" PRId64, layers, kind.heads(),
                     kind.rows(), kind.cols());
  bool changed = sliderIndex("layer", selection.a.layer, layers);
  changed |= headModeCombo("heads", selection.a.mode);
  const bool rollout = selection.rollout && kind.square();  // rollout reads whole layers: no head
  if (selection.a.mode == HeadMode::Single && !rollout) changed |= sliderIndex("head", selection.a.head, kind.heads());
  if (kind.square()) changed |= ImGui::Checkbox("rollout through this layer", &selection.rollout);
  changed |= ImGui::Checkbox("difference A - B", &selection.difference);
  if (selection.difference) {
    ImGui::Indent();
    changed |= sliderIndex("B layer", selection.b.layer, layers);
    changed |= headModeCombo("B heads", selection.b.mode);
    if (selection.b.mode == HeadMode::Single && !rollout)
      changed |= sliderIndex("B head", selection.b.head, kind.heads());
    ImGui::Unindent();
  }
  if (changed && change == SelectionChange::None) change = SelectionChange::Map;
  return change;
}

}  // namespace vkattn::viewer
