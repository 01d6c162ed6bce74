#include "app/run_common.hpp"

#include <imgui.h>

#include <iostream>

namespace vkattn::viewer {

ImGuiScope::ImGuiScope() {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini in the working directory
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 0.0f;
  style.FrameRounding = 2.0f;
}

ImGuiScope::~ImGuiScope() {
  ImGui::DestroyContext();
}

ContextOptions contextOptions(const ViewerArgs& args) {
  ContextOptions options;
  options.device = args.device;
  if (args.validation) options.validation = true;
  return options;
}

SourceOptions resolveSourceOptions(const ViewerArgs& args) {
  SourceOptions options = args.source;
  if (options.spec.empty()) options.spec = defaultSourceSpec();
  return options;
}

int validationStatus(const Context& ctx) {
  const std::size_t count = ctx.instance().validationMessageCount();
  if (count == 0) return 0;
  std::cerr << "vkattn-viewer: the validation layer reported " << count << " message(s)\n";
  return 3;
}

}  // namespace vkattn::viewer
