// The ImGui context a viewer test draws in: the program's own (ImGuiScope: dark style, no
// imgui.ini), a display of the given size at 60 frames a second, and ImGui's default font built
// unless the test brings its own atlas.
#pragma once

#include <imgui.h>

#include "app/run_common.hpp"

namespace vkattn::viewer {

enum class TestFont { Default, OwnAtlas };

class ImGuiTestScope {
 public:
  explicit ImGuiTestScope(ImVec2 display, TestFont font = TestFont::Default) {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = display;
    io.DeltaTime = 1.0f / 60.0f;
    if (font == TestFont::Default) {
      io.Fonts->AddFontDefault();
      io.Fonts->Build();
    }
  }

 private:
  ImGuiScope m_scope;  // made before the body runs, destroyed last
};

}  // namespace vkattn::viewer
