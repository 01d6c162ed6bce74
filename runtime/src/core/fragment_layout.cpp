#include "vkattn/core/fragment_layout.hpp"

#include <kernel_interface.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "runtime_shader_ids.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/core/recorder.hpp"

namespace vkattn {

static_assert(static_cast<uint32_t>(SoftmaxPlacement::Shared) == ATTN_SOFTMAX_SHARED &&
              static_cast<uint32_t>(SoftmaxPlacement::SRegisters) == ATTN_SOFTMAX_S_REGISTERS &&
              static_cast<uint32_t>(SoftmaxPlacement::Registers) == ATTN_SOFTMAX_REGISTERS);
static_assert(kFragmentProbeWords == PROBE_WORDS && kFragmentProbeMaxElements == PROBE_MAX_ELEMS &&
              kFragmentProbeMaxLanes == PROBE_MAX_LANES);

namespace {
using detail::ShaderId;
namespace shaders = detail::shaders;

bool powerOfTwo(uint32_t x) {
  return x != 0 && (x & (x - 1)) == 0;
}

std::string hex(uint32_t x) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", x);
  return text;
}

std::string element(uint32_t code, uint32_t cols) {
  std::string text = "(";
  text.append(std::to_string(code / cols)).append(", ").append(std::to_string(code % cols)).append(")");
  return text;
}

FragmentLayout sharedSoftmax(std::string reason) {
  FragmentLayout layout;
  layout.reason = std::move(reason);
  return layout;
}

// VKATTN_ATTENTION_SOFTMAX: the most the layout may use (REGISTERS when unset).
SoftmaxPlacement softmaxCap() {
  const char* env = std::getenv("VKATTN_ATTENTION_SOFTMAX");
  if (!env || !*env) return SoftmaxPlacement::Registers;
  const std::string value(env);
  if (value == "shared") return SoftmaxPlacement::Shared;
  if (value == "s-registers") return SoftmaxPlacement::SRegisters;
  if (value == "registers") return SoftmaxPlacement::Registers;
  throw InvalidArgument("VKATTN_ATTENTION_SOFTMAX", "'" + value + "', expected shared, s-registers or registers");
}

// VKATTN_FRAGMENT_LAYOUT=LANE_FREE,ELEMENT_FREE,SOFTMAX on a compile-only device.
FragmentLayout layoutFromEnvironment() {
  const char* env = std::getenv("VKATTN_FRAGMENT_LAYOUT");
  if (!env || !*env) return sharedSoftmax("a compile-only device runs no probe (VKATTN_FRAGMENT_LAYOUT unset)");
  unsigned lane = 0, elem = 0, softmax = 0;
  char tail = 0;
  if (std::sscanf(env, "%u,%u,%u%c", &lane, &elem, &softmax, &tail) != 3 || softmax > ATTN_SOFTMAX_REGISTERS)
    throw InvalidArgument("VKATTN_FRAGMENT_LAYOUT",
                          "'" + std::string(env) + "', expected LANE_FREE,ELEMENT_FREE,PLACEMENT (PLACEMENT 0..2)");
  FragmentLayout layout;
  layout.laneFree = lane;
  layout.elementFree = elem;
  layout.placement = static_cast<SoftmaxPlacement>(softmax);
  if (layout.placement != SoftmaxPlacement::Registers) layout.reason = "as VKATTN_FRAGMENT_LAYOUT says";
  return layout;
}

FragmentLayout probe(Context& ctx, bool emulated, uint32_t lanes, uint32_t fm, uint32_t fn, uint32_t fk,
                     uint32_t requiredSubgroupSize) {
  SpecConstants constants;
  constants.set(SPEC_WORKGROUP_SIZE, lanes);
  if (!emulated) constants.set(FRAG_SPEC_M, fm).set(FRAG_SPEC_N, fn).set(FRAG_SPEC_K, fk);
  const ShaderId module = emulated ? shaders::fragment_layout_probe_emu : shaders::fragment_layout_probe_khr;
  const Pipeline& pipeline =
      ctx.pipelines().get({module.name, PROBE_BINDING_COUNT, 0, constants, requiredSubgroupSize});
  const Tensor out = ctx.tensor({PROBE_WORDS}, DType::I32);
  Recorder recorder(ctx.device());
  recorder.dispatch(pipeline, {{PROBE_BINDING_OUT, &out.buffer()}}, nullptr, 0, GroupCount{});
  recorder.submit();
  const std::vector<int32_t> words = out.downloadInt();
  const std::vector<uint32_t> codes(words.begin(), words.end());
  return readFragmentLayout(codes, lanes, fm, fn, fk);
}

}  // namespace

FragmentLayout readFragmentLayout(std::span<const uint32_t> probe, uint32_t lanes, uint32_t fm, uint32_t fn,
                                  uint32_t fk) {
  if (probe.size() < PROBE_WORDS) return sharedSoftmax("the probe wrote " + std::to_string(probe.size()) + " words");
  const uint32_t length = probe[0], aLength = probe[1];
  if (probe[2] != lanes)
    return sharedSoftmax("the probe ran on " + std::to_string(probe[2]) + " lanes, not " + std::to_string(lanes));
  if (!powerOfTwo(lanes) || lanes > PROBE_MAX_LANES || !powerOfTwo(length) || length > PROBE_MAX_ELEMS ||
      uint64_t{length} * lanes != uint64_t{fm} * fn)
    return sharedSoftmax("an accumulator lane holds " + std::to_string(length) + " elements, not each of the " +
                         std::to_string(fm * fn) + " once over " + std::to_string(lanes) + " lanes");
  auto accCode = [&](uint32_t lane, uint32_t i) { return probe[3 + lane * PROBE_MAX_ELEMS + i]; };
  std::vector<uint32_t> row(size_t{lanes} * length);
  std::vector<bool> seen(size_t{fm} * fn, false);
  for (uint32_t l = 0; l < lanes; ++l)
    for (uint32_t i = 0; i < length; ++i) {
      const uint32_t code = accCode(l, i);
      if (code >= fm * fn || seen[code])
        return sharedSoftmax("lane " + std::to_string(l) + "'s element " + std::to_string(i) + " is " +
                             (code >= fm * fn ? "outside the accumulator" : element(code, fn) + ", held twice"));
      seen[code] = true;
      row[l * length + i] = code / fn;
    }
  FragmentLayout layout;
  for (uint32_t bit = 1; bit < lanes; bit <<= 1) {
    bool free = true;
    for (uint32_t l = 0; l < lanes && free; ++l)
      for (uint32_t i = 0; i < length && free; ++i) free = row[l * length + i] == row[(l ^ bit) * length + i];
    if (free) layout.laneFree |= bit;
  }
  for (uint32_t bit = 1; bit < length; bit <<= 1) {
    bool free = true;
    for (uint32_t l = 0; l < lanes && free; ++l)
      for (uint32_t i = 0; i < length && free; ++i) free = row[l * length + i] == row[l * length + (i ^ bit)];
    if (free) layout.elementFree |= bit;
  }
  // Shuffles over the free bits join exactly one group of lanes and elements: each row must be one.
  std::vector<int64_t> groupOf(fm, -1);
  for (uint32_t l = 0; l < lanes; ++l)
    for (uint32_t i = 0; i < length; ++i) {
      const int64_t group = int64_t{l & ~layout.laneFree} * length + (i & ~layout.elementFree);
      int64_t& seenGroup = groupOf[row[l * length + i]];
      if (seenGroup >= 0 && seenGroup != group)
        return sharedSoftmax("row " + std::to_string(row[l * length + i]) +
                             " lies in lanes and elements that shuffles over index bits cannot join");
      seenGroup = group;
    }
  layout.placement = SoftmaxPlacement::SRegisters;
  if (fk != fn) {
    layout.reason = "A fragments are " + std::to_string(fm) + "x" + std::to_string(fk) + ", S's " + std::to_string(fm) +
                    "x" + std::to_string(fn);
  } else if (aLength != length) {
    layout.reason =
        "an A lane holds " + std::to_string(aLength) + " elements, an accumulator lane " + std::to_string(length);
  } else {
    for (uint32_t l = 0; l < lanes && layout.reason.empty(); ++l)
      for (uint32_t i = 0; i < length && layout.reason.empty(); ++i) {
        const uint32_t a = probe[3 + (PROBE_MAX_LANES + l) * PROBE_MAX_ELEMS + i];
        if (a != accCode(l, i))
          layout.reason = "lane " + std::to_string(l) + "'s element " + std::to_string(i) + " is " + element(a, fk) +
                          " in A, " + element(accCode(l, i), fn) + " in the accumulator";
      }
    if (layout.reason.empty()) layout.placement = SoftmaxPlacement::Registers;
  }
  return layout;
}

std::string describe(const FragmentLayout& layout) {
  const std::string bits =
      " (lane bits " + hex(layout.laneFree) + " and element bits " + hex(layout.elementFree) + " free)";
  switch (layout.placement) {
    case SoftmaxPlacement::Registers:
      return "S and P in registers" + bits;
    case SoftmaxPlacement::SRegisters:
      return "S in registers, P through shared memory" + bits + ": " + layout.reason;
    case SoftmaxPlacement::Shared:
      break;
  }
  return "S and P in shared memory: " + layout.reason;
}

namespace {

// The module's layout (the emulated one, or the KHR one at fm x fn x fk over `lanes` lanes,
// requiredSubgroupSize as its pipelines), capped by VKATTN_ATTENTION_SOFTMAX.
FragmentLayout layoutOf(Context& ctx, bool emulated, uint32_t lanes, uint32_t fm, uint32_t fn, uint32_t fk,
                        uint32_t requiredSubgroupSize) {
  const DeviceInfo& info = ctx.info();
  FragmentLayout layout;
  if (ctx.device().compileOnly()) {
    layout = layoutFromEnvironment();
  } else {
    static std::mutex mutex;
    static std::map<std::string, FragmentLayout> probed;
    // The device (name, driver, pipeline-cache UUID as raw bytes) and the shape, as one string.
    std::string key = info.name;
    key.append("\n").append(info.driverInfo).append(emulated ? "\nemulated\n" : "\nkhr\n");
    const uint32_t shape[] = {lanes, fm, fn, fk, requiredSubgroupSize};
    key.append(reinterpret_cast<const char*>(shape), sizeof shape);
    key.append(reinterpret_cast<const char*>(info.pipelineCacheUuid), sizeof info.pipelineCacheUuid);
    std::lock_guard lock(mutex);
    auto found = probed.find(key);
    if (found == probed.end())
      found = probed.emplace(key, probe(ctx, emulated, lanes, fm, fn, fk, requiredSubgroupSize)).first;
    layout = found->second;
  }
  const SoftmaxPlacement cap = softmaxCap();
  if (layout.placement > cap) {
    layout.placement = cap;
    layout.reason = "capped by VKATTN_ATTENTION_SOFTMAX";
  }
  return layout;
}

}  // namespace

FragmentLayout fragmentLayoutFor(Context& ctx, const CoopmatChoice& choice) {
  if (choice.flavour != CoopmatFlavour::Khr)
    return sharedSoftmax("only the VK_KHR_cooperative_matrix module runs its softmax on the fragments");
  return layoutOf(ctx, false, choice.subgroupSize, choice.m, choice.n, choice.k,
                  choice.requireSubgroupSize ? choice.subgroupSize : 0);
}

FragmentLayout emulatedFragmentLayout(Context& ctx) {
  return layoutOf(ctx, true, FRAG_EMULATED_LANES, FRAG_EMULATED_SIZE, FRAG_EMULATED_SIZE, FRAG_EMULATED_SIZE, 0);
}

}  // namespace vkattn
