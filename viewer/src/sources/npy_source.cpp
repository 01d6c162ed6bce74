#include "sources/npy_source.hpp"

#include <chrono>

#include "vkattn/core/error.hpp"
#include "vkattn/io/attention_folder.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn::viewer {
namespace {

namespace fs = std::filesystem;

// The kinds of `vkattn translate --dump-attention`'s folder, drawn as the model's source draws
// them, so that the overview and rollout work as they do on the model; uploaded once.
AttentionSet fromDump(const Context& ctx, io::AttentionDump dump) {
  AttentionSet set;
  set.warning = std::move(dump.note);
  const auto& source = dump.sourceTokens;
  const auto& target = dump.targetTokens;
  if (!dump.cross.empty())
    set.kinds.push_back({"cross", "Cross-attention: target (rows) over source (columns)", target, source,
                         uploadLayers(ctx, dump.cross)});
  if (!dump.encoderSelf.empty())
    set.kinds.push_back({"encoder", "Encoder self-attention", source, source, uploadLayers(ctx, dump.encoderSelf)});
  if (!dump.decoderSelf.empty()) {
    // Row t is the step that produced target token t; its query is the token before (<bos> first).
    std::vector<std::string> inputs = {"<bos>"};
    if (!target.empty()) inputs.insert(inputs.end(), target.begin(), target.end() - 1);
    set.kinds.push_back(
        {"decoder", "Decoder self-attention (causal)", target, std::move(inputs), uploadLayers(ctx, dump.decoderSelf)});
    set.kinds.back().causal = true;
  }
  return set;
}

// A token file the command line names, else the folder's own, each named in errors by its flag.
io::TokenFileRef tokenFile(const std::string& given, const fs::path& folderFile, bool folder, const char* argument) {
  if (!given.empty()) return {given, argument};
  if (folder && fs::exists(folderFile)) return {folderFile.string(), argument};
  return {};
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

NpySource::NpySource(Context& ctx, const fs::path& path, const SourceOptions& options)
    : m_ctx(ctx), m_path(path), m_options(options) {
  if (!fs::exists(path)) throw InvalidArgument("--source", "npy path " + path.string() + " does not exist");
  if (fs::is_directory(path) && !io::isAttentionFolder(path) && !io::isAttentionDump(path))
    throw InvalidArgument("--source", "folder " + path.string() +
                                          " holds neither attention.npy, q.npy and k.npy, nor the maps of "
                                          "`vkattn translate --dump-attention` (cross_layer0.npy, ...)");
  m_loaded = load();  // now, so that bad files fail at start-up with their names
}

AttentionSet NpySource::compute(const std::string&) {
  if (!m_loaded) return load();
  AttentionSet set = std::move(*m_loaded);
  m_loaded.reset();
  return set;
}

AttentionSet NpySource::load() {
  const auto start = std::chrono::steady_clock::now();
  const bool folder = fs::is_directory(m_path);
  if (folder && !io::isAttentionFolder(m_path) && io::isAttentionDump(m_path)) {
    AttentionSet set = fromDump(m_ctx, io::readAttentionDump(m_path));
    set.status = "read the maps of " + m_path.string() + " in " +
                 std::to_string(static_cast<int>(millisecondsSince(start))) + " ms";
    return set;
  }
  const fs::path attentionFile = folder ? m_path / io::kAttentionFile : m_path;
  AttentionKind kind;
  kind.id = "attention";
  std::string how;
  if (!folder || fs::exists(attentionFile)) {
    kind.layers = uploadLayers(m_ctx, io::readAttentionArray(attentionFile));
    kind.causal = m_options.causal;  // the cells past the diagonal drawn as masked
    kind.title = "Attention from " + attentionFile.filename().string() + (m_options.causal ? " (causal)" : "");
    how = "read " + attentionFile.string();
  } else {
    const io::QueryKeyArrays qk = io::readQueryKeyArrays(m_path);
    const io::LayeredArray &ql = qk.q, &kl = qk.k;
    const int64_t d = ql.last;
    AttentionOptions options;
    options.causal = m_options.causal;
    for (int64_t layer = 0; layer < ql.layers; ++layer) {
      const auto qBegin = ql.values.begin() + layer * ql.heads * ql.rows * d;
      const auto kBegin = kl.values.begin() + layer * kl.heads * kl.rows * d;
      Tensor qt = m_ctx.tensor({1, ql.heads, ql.rows, d}, std::vector<float>(qBegin, qBegin + ql.heads * ql.rows * d));
      Tensor kt = m_ctx.tensor({1, kl.heads, kl.rows, d}, std::vector<float>(kBegin, kBegin + kl.heads * kl.rows * d));
      kind.layers.push_back(weightsPerHead(m_ctx, qt, kt, options));
    }
    kind.title = std::string("softmax(q k^T / sqrt(d))") + (m_options.causal ? ", causal" : "") + " from q.npy, k.npy";
    how = "weights of " + (m_path / io::kQueryFile).string() + " and " + (m_path / io::kKeyFile).string() +
          " computed with vkattn::attentionWeights on " + m_ctx.info().name;
  }

  const io::AxisTokenFiles files{
      tokenFile(m_options.tokensFile, m_path / io::kTokensFile, folder, "--tokens"),
      tokenFile(m_options.rowTokensFile, m_path / io::kRowTokensFile, folder, "--row-tokens"),
      tokenFile(m_options.colTokensFile, m_path / io::kColTokensFile, folder, "--col-tokens")};
  io::AxisTokens tokens = io::readAxisTokens(files, kind.rows(), kind.cols());
  kind.rowTokens = std::move(tokens.rows);
  kind.colTokens = std::move(tokens.cols);

  AttentionSet set;
  set.warning = std::move(tokens.note);
  set.kinds.push_back(std::move(kind));
  set.status = how + " in " + std::to_string(static_cast<int>(millisecondsSince(start))) + " ms";
  return set;
}

}  // namespace vkattn::viewer
