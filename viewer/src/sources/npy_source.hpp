// Attention from NumPy files: an attention array [L?, H?, Lq, Lk], or query and key dumps
// (q.npy [L?, H?, Lq, D], k.npy [L?, H?, Lk, D]) whose weights vkattn computes on the device.
// Token labels come from text files (one token per line, see vkattn/io/attention_folder.hpp), else
// they are the positions.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sources/attention_source.hpp"

namespace vkattn::viewer {

class NpySource : public AttentionSource {
 public:
  // `path`: an attention .npy, or a folder holding attention.npy, or q.npy and k.npy, and
  // optionally tokens.txt / row_tokens.txt / col_tokens.txt. Reads and checks everything now.
  NpySource(Context& ctx, const std::filesystem::path& path, const SourceOptions& options);

  std::string name() const override { return "npy:" + m_path.string(); }
  bool usesSentence() const override { return false; }
  AttentionSet compute(const std::string& sentence) override;

 private:
  AttentionSet load();

  Context& m_ctx;
  std::filesystem::path m_path;
  SourceOptions m_options;
  std::optional<AttentionSet> m_loaded;  // read by the constructor, handed out by the first compute()
};

}  // namespace vkattn::viewer
