// The GPU kernels `vkattn devices --pipelines` compiles: every kernel Auto could choose on a GPU,
// at the specializations that matter (head dims, causal, dtypes, GQA decode, each weight format),
// each reached through the public op on tensors of a representative shape, so that the pipeline
// compiled is exactly the one the op would run there.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "vkattn/ops/op_row.hpp"

namespace vkattn::cli {

// What the op was asked (label), and the call on tensors of that shape (build).
using CatalogEntry = CatalogShape;

std::vector<CatalogEntry> pipelineCatalog();

}  // namespace vkattn::cli
