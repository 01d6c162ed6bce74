#include "app/run_common.hpp"

#include <imgui.h>

#include <cstdlib>
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

std::filesystem::path windowPipelineCachePath() {
  if (const char* path = std::getenv("VKATTN_PIPELINE_CACHE"); path && *path) return std::string(path) + ".window";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "vkattn" / "viewer-window-pipelines.bin";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "vkattn" / "viewer-window-pipelines.bin";
  return {};
}

int validationStatus(const Context& ctx, std::size_t otherMessages) {
  const std::size_t count = ctx.instance().validationMessageCount() + otherMessages;
  if (count == 0) return 0;
  std::cerr << "vkattn-viewer: the validation layer reported " << count << " message(s)\n";
  return 3;
}

}  // namespace vkattn::viewer
