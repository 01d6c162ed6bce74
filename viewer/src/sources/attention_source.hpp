// Where the viewer's maps come from: a source turns an input sentence (or nothing) into named
// kinds of attention (cross, encoder self, decoder self, ...), each layers x heads of maps with
// row and column token labels. Sources: the synthetic demo, .npy files, the translation model, a
// GGUF language model.
// The maps are device tensors on the context the source was made with (files are uploaded once).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sources/device_map.hpp"
#include "vkattn/core/context.hpp"

namespace vkattn::viewer {

// One kind of attention: every layer's heads, each a [rows, cols] map, rows attending to columns.
struct AttentionKind {
  std::string id;     // what --view names: "cross", "encoder", "decoder", "attention"
  std::string title;  // shown above the map
  std::vector<std::string> rowTokens;
  std::vector<std::string> colTokens;
  std::vector<std::vector<DeviceMap>> layers;  // [layer][head]
  bool causal = false;  // column c > row r is masked out (decoder self-attention), not zero weight
  std::vector<int64_t> unknownRows, unknownCols;  // tokens the model read as <unk>

  int64_t heads() const { return layers.empty() ? 0 : static_cast<int64_t>(layers.front().size()); }
  int64_t rows() const { return heads() == 0 ? 0 : layers.front().front().rows; }
  int64_t cols() const { return heads() == 0 ? 0 : layers.front().front().cols; }
  // Rollout multiplies maps across layers, which only means something for self-attention.
  bool square() const { return rows() == cols() && rows() > 0; }
};

struct AttentionSet {
  std::vector<AttentionKind> kinds;
  std::string output;   // e.g. the French translation; empty when the source has none
  std::string status;   // one line about how it was made (source, timing)
  std::string warning;  // something the reader must know (unknown words); empty when none

  const AttentionKind* find(const std::string& id) const {
    for (const auto& kind : kinds)
      if (kind.id == id) return &kind;
    return nullptr;
  }
};

class AttentionSource {
 public:
  virtual ~AttentionSource() = default;
  // Short name for the window title and the status line.
  virtual std::string name() const = 0;
  // True when compute() reads the sentence (the UI then shows the text box).
  virtual bool usesSentence() const = 0;
  // The maps for `sentence`. Throws vkattn::Error (InvalidArgument naming the input) on bad input.
  // A source whose maps grow as it works (a language model generating) hands each intermediate
  // set to the progress callback before it returns the last one.
  virtual AttentionSet compute(const std::string& sentence) = 0;

  using Progress = std::function<void(AttentionSet)>;
  // Called from the thread that runs compute(); none by default (intermediate sets are dropped).
  void onProgress(Progress progress) { m_progress = std::move(progress); }

 protected:
  void publish(AttentionSet set) const {
    if (m_progress) m_progress(std::move(set));
  }

 private:
  Progress m_progress;
};

// `spec` is what --source takes: "demo", "model" (or "model:DIR"), "npy:PATH" (an attention .npy,
// or a folder with attention.npy or q.npy and k.npy, and optionally tokens.txt), or "gguf:PATH" (a
// LLaMA-family model that generates from the sentence as its prompt).
// Throws InvalidArgument("--source") for an unknown spec or an unusable path.
struct SourceOptions {
  std::string spec = "demo";
  std::string tokensFile;     // labels for rows and columns (one token per line)
  std::string rowTokensFile;  // labels for rows only
  std::string colTokensFile;  // labels for columns only
  bool causal = false;        // npy q/k: mask keys after the query
  int64_t maxTokens = 48;     // gguf: tokens generated after the prompt
};
std::unique_ptr<AttentionSource> makeSource(Context& ctx, const SourceOptions& options);

// "model" when the model's files are in defaultModelDirectory(), else "demo".
std::string defaultSourceSpec();

}  // namespace vkattn::viewer
