// How a device lays out a cooperative-matrix fragment's elements over a subgroup's lanes, and
// what the fragment attention kernel (attention_coopmat.comp) makes of it: its softmax runs on
// S's accumulator fragments, reducing rows with shuffles, when every row lies in one group of
// lanes (lanes that differ only in some index bits) and elements (a lane's elements that differ
// only in some index bits); P stays in registers too when the A fragment's layout is the
// accumulator's. The cooperative-matrix extensions leave the layout to the implementation, so
// a probe kernel (fragment_layout_probe.comp) reads it from the device, once per device and shape
// in a process.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace vkattn {

class Context;
struct CoopmatChoice;

// Where the fragment attention kernel keeps S and P during its softmax.
enum class SoftmaxPlacement : uint32_t {
  Shared = 0,      // both in shared memory (any layout)
  SRegisters = 1,  // S in its accumulator fragments, P through shared memory
  Registers = 2,   // both in registers: P's A fragments copied element by element from S's
};

struct FragmentLayout {
  SoftmaxPlacement placement = SoftmaxPlacement::Shared;
  uint32_t laneFree = 0;     // lane-index bits that do not change an accumulator element's row
  uint32_t elementFree = 0;  // element-index bits that do not change its row
  std::string reason;        // why not Registers; empty when it is
};

// The probe's output: [0] accumulator elements per lane, [1] A elements per lane, [2] the
// subgroup size, then kFragmentProbeMaxElements codes (row * columns + column) per lane for the
// accumulator (kFragmentProbeMaxLanes lanes), then as many for A.
inline constexpr uint32_t kFragmentProbeMaxElements = 64, kFragmentProbeMaxLanes = 128;
inline constexpr uint32_t kFragmentProbeWords = 3 + 2 * kFragmentProbeMaxLanes * kFragmentProbeMaxElements;

// What a probe's output says for an fm x fn accumulator and an fm x fk A fragment over `lanes`
// lanes. Pure.
FragmentLayout readFragmentLayout(std::span<const uint32_t> probe, uint32_t lanes, uint32_t fm, uint32_t fn,
                                  uint32_t fk);

// "S and P in registers (lane bits 0x3 and element bits 0x5 free)", "S in registers, P through
// shared memory (...): <reason>", or "S and P in shared memory: <reason>".
std::string describe(const FragmentLayout& layout);

// The layout of the fragment attention kernel's fragments on ctx's device, probed on the device
// the first time and remembered for the process: the KHR module's at the choice's shape and
// subgroup size (other flavours, VK_NV_cooperative_matrix, keep the shared-memory softmax), or the
// emulated module's (16 x 16 x 16 over 8 lanes). A compile-only device runs nothing:
// VKATTN_FRAGMENT_LAYOUT=LANE_FREE,ELEMENT_FREE,PLACEMENT (PLACEMENT 0..2) supplies the KHR
// layout for compiler statistics, else the shared-memory softmax.
// VKATTN_ATTENTION_SOFTMAX=shared|s-registers|registers caps the placement (InvalidArgument naming
// the variable for any other value).
FragmentLayout fragmentLayoutFor(Context& ctx, const CoopmatChoice& choice);
FragmentLayout emulatedFragmentLayout(Context& ctx);

}  // namespace vkattn
