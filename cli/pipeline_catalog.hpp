// The GPU kernels `vkattn devices --pipelines` compiles: every kernel Auto could choose on a GPU,
// at the specializations that matter (head dims, causal, dtypes, GQA decode, each weight format),
// each reached through the public op on tensors of a representative shape, so that the pipeline
// compiled is exactly the one the op would run there.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "vkattn/core/context.hpp"

namespace vkattn::cli {

struct CatalogEntry {
  std::string label;  // what the op was asked, e.g. "attention f16 D128 causal"
  std::function<void(Context&)> build;
};

std::vector<CatalogEntry> pipelineCatalog();

}  // namespace vkattn::cli
