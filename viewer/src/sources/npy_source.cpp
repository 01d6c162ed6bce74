#include "sources/npy_source.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "sources/attention_dump.hpp"
#include "sources/token_file.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/io/npy.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn::viewer {
namespace {

namespace fs = std::filesystem;

// [L?, H?, rows, last] -> layers, heads (missing leading dims are 1).
struct Layout {
  int64_t layers = 1, heads = 1, rows = 0, last = 0;
};

Layout layoutOf(const io::NpyArray& array, const std::string& name, const char* shapeText) {
  const Shape& s = array.shape;
  if (s.size() < 2 || s.size() > 4) throw InvalidArgument(name, "has shape " + toString(s) + "; expected " + shapeText);
  Layout l;
  l.rows = s[s.size() - 2];
  l.last = s[s.size() - 1];
  if (s.size() >= 3) l.heads = s[s.size() - 3];
  if (s.size() == 4) l.layers = s[0];
  if (l.rows <= 0 || l.last <= 0 || l.heads <= 0 || l.layers <= 0)
    throw InvalidArgument(name, "has an empty dimension: " + toString(s));
  return l;
}

std::vector<std::string> positions(int64_t n) {
  std::vector<std::string> labels;
  for (int64_t i = 0; i < n; ++i) labels.push_back(std::to_string(i));
  return labels;
}

// The labels of one axis: its own file, else the shared one, else positions. A file whose length
// does not match is an error naming it; a file that is not UTF-8 adds its note to `notes`.
std::vector<std::string> labelsFor(const std::string& own, const std::string& ownArgument, const std::string& shared,
                                   const std::string& sharedArgument, int64_t n, bool sharedFits,
                                   std::vector<std::string>& notes) {
  auto read = [&](const std::string& path, const std::string& argument) {
    TokenFile file = readTokenFile(path, argument);
    if (!file.note.empty() && std::find(notes.begin(), notes.end(), file.note) == notes.end())
      notes.push_back(file.note);
    return std::move(file.tokens);
  };
  if (!own.empty()) {
    auto tokens = read(own, ownArgument);
    if (static_cast<int64_t>(tokens.size()) != n)
      throw InvalidArgument(
          ownArgument, own + " has " + std::to_string(tokens.size()) + " tokens; the map has " + std::to_string(n));
    return tokens;
  }
  if (!shared.empty() && sharedFits) return read(shared, sharedArgument);
  return positions(n);
}

std::string existing(const fs::path& dir, const char* name) {
  const fs::path p = dir / name;
  return fs::exists(p) ? p.string() : std::string();
}

}  // namespace

NpySource::NpySource(Context& ctx, const fs::path& path, const SourceOptions& options)
    : m_ctx(ctx), m_path(path), m_options(options) {
  if (!fs::exists(path)) throw InvalidArgument("--source", "npy path " + path.string() + " does not exist");
  if (fs::is_directory(path) && !fs::exists(path / "attention.npy") &&
      !(fs::exists(path / "q.npy") && fs::exists(path / "k.npy")) && !isAttentionDump(path))
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
  if (folder && !fs::exists(m_path / "attention.npy") && !fs::exists(m_path / "q.npy") && isAttentionDump(m_path)) {
    AttentionSet set = loadAttentionDump(m_path);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    set.status = "read the maps of " + m_path.string() + " in " + std::to_string(static_cast<int>(ms)) + " ms";
    return set;
  }
  const fs::path attentionFile = folder ? m_path / "attention.npy" : m_path;
  AttentionKind kind;
  kind.id = "attention";
  std::string how;
  if (!folder || fs::exists(attentionFile)) {
    const std::string name = attentionFile.string();
    const io::NpyArray array = io::readNpy(attentionFile);
    const Layout l = layoutOf(array, name, "[layers?, heads?, rows, cols]");
    std::vector<float> values = io::npyFloats(array, name);
    for (float v : values)
      if (!std::isfinite(v)) throw InvalidArgument(name, "contains NaN or infinity");
    const int64_t perLayer = l.heads * l.rows * l.last;
    for (int64_t layer = 0; layer < l.layers; ++layer) {
      AttentionMap map{l.heads, l.rows, l.last, {}};
      map.weights.assign(values.begin() + layer * perLayer, values.begin() + (layer + 1) * perLayer);
      kind.layers.push_back(std::move(map));
    }
    kind.title = "Attention from " + attentionFile.filename().string();
    how = "read " + name;
  } else {
    const std::string qName = (m_path / "q.npy").string(), kName = (m_path / "k.npy").string();
    const io::NpyArray qa = io::readNpy(m_path / "q.npy"), ka = io::readNpy(m_path / "k.npy");
    const Layout ql = layoutOf(qa, qName, "[layers?, heads?, rows, headDim]");
    const Layout kl = layoutOf(ka, kName, "[layers?, heads?, cols, headDim]");
    if (qa.shape.size() != ka.shape.size() || ql.layers != kl.layers || ql.heads != kl.heads || ql.last != kl.last)
      throw InvalidArgument(kName, "has shape " + toString(ka.shape) + ", which does not match q.npy's " +
                                       toString(qa.shape) + " (same layers, heads and head dim)");
    const std::vector<float> q = io::npyFloats(qa, qName), k = io::npyFloats(ka, kName);
    const int64_t d = ql.last;
    AttentionOptions options;
    options.causal = m_options.causal;
    for (int64_t layer = 0; layer < ql.layers; ++layer) {
      const auto qBegin = q.begin() + layer * ql.heads * ql.rows * d;
      const auto kBegin = k.begin() + layer * kl.heads * kl.rows * d;
      Tensor qt = m_ctx.tensor({1, ql.heads, ql.rows, d}, std::vector<float>(qBegin, qBegin + ql.heads * ql.rows * d));
      Tensor kt = m_ctx.tensor({1, kl.heads, kl.rows, d}, std::vector<float>(kBegin, kBegin + kl.heads * kl.rows * d));
      AttentionMap map{ql.heads, ql.rows, kl.rows, {}};
      map.weights.reserve(static_cast<std::size_t>(ql.heads * ql.rows * kl.rows));
      for (int64_t head = 0; head < ql.heads; ++head) {
        std::vector<float> w = attentionWeights(m_ctx, qt, kt, {head}, options).download();
        map.weights.insert(map.weights.end(), w.begin(), w.end());
      }
      kind.layers.push_back(std::move(map));
    }
    kind.title = std::string("softmax(q k^T / sqrt(d))") + (m_options.causal ? ", causal" : "") + " from q.npy, k.npy";
    how = "weights of " + qName + " and " + kName + " computed with vkattn::attentionWeights on " + m_ctx.info().name;
  }

  const int64_t rows = kind.rows(), cols = kind.cols();
  std::string shared = m_options.tokensFile, rowFile = m_options.rowTokensFile, colFile = m_options.colTokensFile;
  if (folder) {
    if (shared.empty()) shared = existing(m_path, "tokens.txt");
    if (rowFile.empty()) rowFile = existing(m_path, "row_tokens.txt");
    if (colFile.empty()) colFile = existing(m_path, "col_tokens.txt");
  }
  int64_t sharedCount = -1;
  if (!shared.empty()) sharedCount = static_cast<int64_t>(readTokenFile(shared, "--tokens").tokens.size());
  if (sharedCount >= 0 && sharedCount != rows && sharedCount != cols && rowFile.empty() && colFile.empty())
    throw InvalidArgument("--tokens", shared + " has " + std::to_string(sharedCount) + " tokens; the map has " +
                                          std::to_string(rows) + " rows and " + std::to_string(cols) + " columns");
  std::vector<std::string> notes;
  kind.rowTokens = labelsFor(rowFile, "--row-tokens", shared, "--tokens", rows, sharedCount == rows, notes);
  kind.colTokens = labelsFor(colFile, "--col-tokens", shared, "--tokens", cols, sharedCount == cols, notes);

  AttentionSet set;
  for (const std::string& note : notes) set.warning += (set.warning.empty() ? "" : "; ") + note;
  set.kinds.push_back(std::move(kind));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  set.status = how + " in " + std::to_string(static_cast<int>(ms)) + " ms";
  return set;
}

}  // namespace vkattn::viewer
