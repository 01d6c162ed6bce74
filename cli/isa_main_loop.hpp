// The main loop of a kernel's machine code, as AMD's compilers print it (RADV's "Assembly"
// representation: blocks labelled `BB<n>:`, branches `s_branch BB<n>` / `s_cbranch_* BB<n>`): the
// loop whose body holds the most matrix instructions (then the most vector memory loads, then the
// most lines), its vector memory loads, and the most waits for all of them (`s_waitcnt vmcnt(0)`,
// RDNA4's `s_wait_loadcnt 0x0`) on one trip through it (the path from its first block to its back
// edge with the most; a branch skipped only when no lane takes it counts as taken). A kernel that
// overlaps its loads with its arithmetic issues a tile's loads and waits once a trip; one that
// waits after each load stalls on memory latency as many times. These are counts read from the
// listing, not measured speed.
#pragma once

#include <optional>
#include <string_view>

namespace vkattn::cli {

struct IsaMainLoop {
  int lines = 0;               // of the loop's body
  int matrixInstructions = 0;  // v_wmma_, v_swmmac_, v_mfma_
  int memoryLoads = 0;         // buffer_load_, global_load_
  int fullMemoryWaits = 0;     // on one trip: waits until no vector memory load is outstanding
};

// None where the listing has no loop, or is not in AMD's syntax.
std::optional<IsaMainLoop> amdMainLoop(std::string_view isa);

}  // namespace vkattn::cli
