// The GLFW side: the library's lifetime, the window, what the Vulkan instance and queue need to
// present to it, and an event wait that keeps an idle viewer from spinning.
#pragma once

#include <vulkan/vulkan.h>

#include <string>
#include <vector>
#define GLFW_INCLUDE_NONE
#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>

namespace vkattn::viewer {

// glfwInit / glfwTerminate. Throws Unsupported (with GLFW's reason, e.g. no DISPLAY) when there
// is no window system or it has no Vulkan.
class GlfwLibrary {
 public:
  GlfwLibrary();
  ~GlfwLibrary();
  GlfwLibrary(const GlfwLibrary&) = delete;
  GlfwLibrary& operator=(const GlfwLibrary&) = delete;

  // The surface extensions a Vulkan instance needs to present to GLFW windows.
  static std::vector<std::string> instanceExtensions();
  // Whether queue `family` of `physical` can present to this window system.
  static bool canPresent(VkInstance instance, VkPhysicalDevice physical, uint32_t family);
};

class Window {
 public:
  Window(int width, int height, const std::string& title);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  GLFWwindow* handle() const noexcept { return m_window; }
  bool shouldClose() const { return glfwWindowShouldClose(m_window); }
  void setTitle(const std::string& title) { glfwSetWindowTitle(m_window, title.c_str()); }

  // Processes events. After input the next few frames run at once (ImGui settles hover and
  // animations over a couple of frames); otherwise this sleeps until an event, or `idleSeconds`
  // (1/30 s while `busy`: progress to show).
  void pollOrWait(bool busy, double idleSeconds = 0.5);

 private:
  static void onInput(GLFWwindow* window);

  GLFWwindow* m_window = nullptr;
  int m_framesAfterInput = 0;
};

}  // namespace vkattn::viewer
