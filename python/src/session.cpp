// The session: its context, its resources and the mutex guarding both.
#include "session.hpp"

#include <unordered_map>

namespace vkattn::python {
namespace {

struct Session {
  std::unique_ptr<Context> context;
  // Declared after the context: destroyed first.
  std::unordered_map<const void*, std::unique_ptr<SessionResource>> resources;
  std::unordered_map<uint64_t, Tensor> tensors;  // node-based: a kept tensor never moves
  uint64_t nextTensorId = 1;                     // outlives device changes, so ids are never reused
  TransferBytes transfers;
};

Session& state() {
  static Session session;
  return session;
}

}  // namespace

std::mutex& sessionMutex() {
  static std::mutex mutex;
  return mutex;
}

Context& session() {
  auto& ctx = state().context;
  if (!ctx) ctx = std::make_unique<Context>();
  return *ctx;
}

void useDevice(const std::optional<std::string>& device) {
  Session& s = state();
  s.resources.clear();  // their buffers belong to the old device
  s.tensors.clear();
  s.context.reset();  // one device at a time: release the old one first
  s.context = std::make_unique<Context>(ContextOptions{.device = device});
}

void closeSession() noexcept {
  std::lock_guard<std::mutex> lock(sessionMutex());
  Session& s = state();
  s.resources.clear();
  s.tensors.clear();
  s.context.reset();
}

SizeLimits sizeLimits() {
  const uint64_t binding = onDevice([](Context& ctx) { return ctx.info().maxStorageBufferRange; });
  return SizeLimits{.hostBytes = hostMemoryBytes(), .bindingBytes = binding};
}

SessionResource* sessionResource(const void* owner) {
  auto& resources = state().resources;
  auto it = resources.find(owner);
  return it == resources.end() ? nullptr : it->second.get();
}

SessionResource& setSessionResource(const void* owner, std::unique_ptr<SessionResource> resource) {
  return *(state().resources[owner] = std::move(resource));
}

void dropSessionResource(const void* owner) noexcept {
  state().resources.erase(owner);
}

uint64_t keepTensor(Tensor tensor) {
  Session& s = state();
  const uint64_t id = s.nextTensorId++;
  s.tensors.emplace(id, std::move(tensor));
  return id;
}

const Tensor* keptTensor(uint64_t id) {
  auto& tensors = state().tensors;
  auto it = tensors.find(id);
  return it == tensors.end() ? nullptr : &it->second;
}

void dropTensor(uint64_t id) noexcept {
  state().tensors.erase(id);
}

TransferBytes& transferBytes() {
  return state().transfers;
}

}  // namespace vkattn::python
