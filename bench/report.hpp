// Google Benchmark reporting of one verified measurement: a case whose output disagrees with
// the reference, or whose kernel cannot run here, is reported as an error, not as a speed.
#pragma once

#include <benchmark/benchmark.h>

#include <memory>

#include "measurements.hpp"
#include "vkattn/core/context.hpp"

namespace vkattn::bench {

// One context per benchmark program (the default device).
inline Context& context() {
  static std::unique_ptr<Context> ctx = std::make_unique<Context>();
  return *ctx;
}

inline void report(benchmark::State& state, const measure::Measurement& m) {
  if (!m.skipped.empty()) {
    state.SkipWithError(("not run: " + m.skipped).c_str());
    return;
  }
  if (m.error.failures) {
    state.SkipWithError(("output does not match the reference: " + reference::describe(m.error)).c_str());
    return;
  }
  for (auto _ : state) state.SetIterationTime(m.medianMs * 1e-3);
  state.counters[m.unit] = m.rate;
  state.counters["max_abs_err"] = m.error.maxAbs;
  state.counters["err/tol"] = m.error.worstRatio;
  if (m.baselineSkipped.empty()) {
    state.counters[std::string(m.baseline) + "_" + m.unit] = m.baselineRate;
    state.counters[std::string("vs_") + m.baseline] = m.rate / m.baselineRate;
  }
  state.SetLabel(m.variant.empty() ? m.shape : m.variant + " " + m.shape);
}

}  // namespace vkattn::bench
