// What the window and headless runs share: the ImGui context's lifetime and settings, the
// context options from the flags, the default source, and the validation verdict.
#pragma once

#include <vulkan/vulkan.h>

#include "app/cli_args.hpp"
#include "sources/attention_source.hpp"
#include "vkattn/core/context.hpp"

namespace vkattn::viewer {

inline constexpr float kFontPixels = 16.0f;
inline constexpr VkClearColorValue kClearColor = {{0.09f, 0.09f, 0.11f, 1.0f}};

// ImGui::CreateContext / DestroyContext, dark style, no imgui.ini.
class ImGuiScope {
 public:
  ImGuiScope();
  ~ImGuiScope();
  ImGuiScope(const ImGuiScope&) = delete;
  ImGuiScope& operator=(const ImGuiScope&) = delete;
};

// --device and --validation (the environment still applies when they are absent).
ContextOptions contextOptions(const ViewerArgs& args);
// args.source with an empty spec resolved: the model when built with it and its files exist, else the demo.
SourceOptions resolveSourceOptions(const ViewerArgs& args);
// 0, or 3 after printing them when the validation layer reported anything during the run (on
// `ctx`'s instance, which the window's source worker shares).
int validationStatus(const Context& ctx);

}  // namespace vkattn::viewer
