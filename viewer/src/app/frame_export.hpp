// Rendering views to PNG files through the ImGui Vulkan renderer: the figure alone (export) or
// a whole ImGui frame (headless screenshot), each optionally with its layout sidecar.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

#include "app/app.hpp"
#include "render/imgui_vulkan.hpp"

namespace vkattn::viewer {

// Draws App::drawFigure at width x height into an offscreen target of `format` (compatible with
// the render pass `renderer` was made for) and writes `path`; `layoutPath` (may be empty) gets
// the sidecar. `argument` names the flag in errors.
void exportFigure(const Context& ctx, ImGuiVulkan& renderer, VkFormat format, App& app, const std::string& path,
                  uint32_t width, uint32_t height, const std::string& layoutPath, const std::string& argument);

}  // namespace vkattn::viewer
