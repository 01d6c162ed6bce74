// VKATTN_PIPELINE_TRACE=FILE: one line appended to FILE per pipeline the driver builds, so that a
// test run can be read for what it compiled and what each compile cost (tools/ci/test_times.py
// --pipelines sums it per test program).
#pragma once

#include <string>

#include "vkattn/core/spec_constants.hpp"

namespace vkattn::detail {

// Whether the trace is asked for (read once per process).
bool pipelineTraceRequested();

// Appends "<program>\t<module>\t<constants>\t<milliseconds>\n" to the trace file in one write,
// so that processes sharing the file do not interleave their lines. Constants are "id=word" in
// id order. Nothing is thrown: a trace that cannot be written is left out.
void tracePipelineBuild(const std::string& module, const SpecConstants& constants, double milliseconds);

}  // namespace vkattn::detail
