#include "platform/window.hpp"

#include <string>

#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

std::string g_lastGlfwError;

void onGlfwError(int code, const char* description) {
  g_lastGlfwError =
      std::string(description ? description : "unknown error") + " (GLFW error " + std::to_string(code) + ")";
}

constexpr int kFramesAfterInput = 3;
// While the source works and nothing is typed or moved, progress is redrawn at most this often:
// enough for the sweeping bar, and the CPU is left to the computation (FIFO presentation does not
// pace frames on every display; the README's viewer timings show what it costs).
constexpr double kBusyFrameSeconds = 1.0 / 30.0;

}  // namespace

GlfwLibrary::GlfwLibrary() {
  glfwSetErrorCallback(&onGlfwError);
  if (!glfwInit())
    throw Unsupported("cannot open a window: " + g_lastGlfwError +
                      "; run under a display (or xvfb-run -a), or render headless with --screenshot");
  if (!glfwVulkanSupported()) {
    glfwTerminate();
    throw Unsupported("GLFW found no Vulkan loader for windows (" + g_lastGlfwError + ")");
  }
}

GlfwLibrary::~GlfwLibrary() {
  glfwTerminate();
}

std::vector<std::string> GlfwLibrary::instanceExtensions() {
  uint32_t count = 0;
  const char** names = glfwGetRequiredInstanceExtensions(&count);
  if (!names) throw Unsupported("GLFW cannot present with Vulkan here: " + g_lastGlfwError);
  return std::vector<std::string>(names, names + count);
}

bool GlfwLibrary::canPresent(VkInstance instance, VkPhysicalDevice physical, uint32_t family) {
  return glfwGetPhysicalDevicePresentationSupport(instance, physical, family) == GLFW_TRUE;
}

Window::Window(int width, int height, const std::string& title) {
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);  // Vulkan draws, no GL context
  m_window = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!m_window) throw Unsupported("cannot create a window: " + g_lastGlfwError);
  glfwSetWindowUserPointer(m_window, this);
  // Installed before ImGui's backend, which chains to them, so any input wakes the loop.
  glfwSetCursorPosCallback(m_window, [](GLFWwindow* w, double, double) { onInput(w); });
  glfwSetMouseButtonCallback(m_window, [](GLFWwindow* w, int, int, int) { onInput(w); });
  glfwSetScrollCallback(m_window, [](GLFWwindow* w, double, double) { onInput(w); });
  glfwSetKeyCallback(m_window, [](GLFWwindow* w, int, int, int, int) { onInput(w); });
  glfwSetCharCallback(m_window, [](GLFWwindow* w, unsigned int) { onInput(w); });
  glfwSetFramebufferSizeCallback(m_window, [](GLFWwindow* w, int, int) { onInput(w); });
  glfwSetWindowRefreshCallback(m_window, [](GLFWwindow* w) { onInput(w); });
}

Window::~Window() {
  if (m_window) glfwDestroyWindow(m_window);
}

void Window::onInput(GLFWwindow* window) {
  if (auto* self = static_cast<Window*>(glfwGetWindowUserPointer(window))) self->m_framesAfterInput = kFramesAfterInput;
}

void Window::pollOrWait(bool busy, double idleSeconds) {
  if (m_framesAfterInput > 0) {
    glfwPollEvents();
    --m_framesAfterInput;
  } else {
    glfwWaitEventsTimeout(busy ? kBusyFrameSeconds : idleSeconds);
  }
}

}  // namespace vkattn::viewer
