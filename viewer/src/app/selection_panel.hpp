// The control panel's choice of map: the view (one radio button per kind of attention), layer and
// head (or the mean or max of the heads), rollout, and the difference A - B.
#pragma once

#include "sources/attention_source.hpp"
#include "sources/selection.hpp"

namespace vkattn::viewer {

enum class SelectionChange {
  None,
  Map,   // a layer, head, rollout or difference field changed
  Kind,  // another view: its hidden columns cleared, the choices clamped to it
};

// The fields (between ImGui::Begin and End), editing `selection` within `set`.
SelectionChange drawSelectionPanel(const AttentionSet& set, Selection& selection);

}  // namespace vkattn::viewer
