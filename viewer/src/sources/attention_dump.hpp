// The folder `vkattn translate --dump-attention DIR` writes (and vkattn.save_attention): per layer
// encoder_self_layerL.npy, decoder_self_layerL.npy and cross_layerL.npy, each [heads, rows, cols],
// with source_tokens.txt and target_tokens.txt. Read as one source with every layer of each kind,
// so that the overview and rollout work as they do on the model.
#pragma once

#include <filesystem>

#include "sources/attention_source.hpp"

namespace vkattn::viewer {

// True when `dir` holds layer 0 of at least one kind.
bool isAttentionDump(const std::filesystem::path& dir);

// Every kind present, layers 0.. in order until the first missing one. Throws InvalidArgument
// naming the file whose shape or tokens do not fit.
AttentionSet loadAttentionDump(const std::filesystem::path& dir);

}  // namespace vkattn::viewer
