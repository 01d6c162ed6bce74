#include "sources/language_model_source.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "vkattn/core/error.hpp"
#include "vkattn/io/utf8.hpp"
#include "vkattn/tokenizers/text_tokenizer.hpp"

namespace vkattn::viewer {
namespace {

// One head's [n, n] map grown to [n + rows, n + rows] by a step's rows of that head: the old rows
// (their new columns zero: causal), then the step's rows, copied on the device.
std::shared_ptr<const Tensor> grownHead(Context& ctx, const std::shared_ptr<const Tensor>& old, int64_t n,
                                        const Tensor& step, int64_t head, const Tensor& zeros) {
  const int64_t rows = step.shape()[2], total = n + rows;
  if (step.shape()[3] != total) throw Error("a generation step's attention rows do not span every position");
  auto next = std::make_shared<Tensor>(ctx.tensor({total, total}));
  const auto bytes = [](int64_t floats) { return static_cast<VkDeviceSize>(floats) * sizeof(float); };
  if (n > 0) {
    std::vector<VkBufferCopy> kept, cleared;
    for (int64_t r = 0; r < n; ++r) {
      kept.push_back({bytes(r * n), bytes(r * total), bytes(n)});
      cleared.push_back({0, bytes(r * total + n), bytes(rows)});
    }
    copyRegions(ctx.device(), old->buffer(), next->buffer(), kept);
    copyRegions(ctx.device(), zeros.buffer(), next->buffer(), cleared);
  }
  std::vector<VkBufferCopy> added;
  for (int64_t r = 0; r < rows; ++r)
    added.push_back({bytes((head * rows + r) * total), bytes((n + r) * total), bytes(total)});
  copyRegions(ctx.device(), step.buffer(), next->buffer(), added);
  return next;
}

}  // namespace

LanguageModelSource::LanguageModelSource(Context& ctx, const std::filesystem::path& gguf, int64_t maxTokens)
    : m_ctx(ctx), m_name("gguf:" + gguf.filename().string()), m_model(ctx, gguf), m_maxTokens(maxTokens) {
  if (maxTokens < 0) throw InvalidArgument("--max-tokens", "must be >= 0");
}

AttentionSet LanguageModelSource::compute(const std::string& prompt) {
  const LanguageModelConfig& config = m_model.config();
  const TextTokenizer& tokenizer = m_model.tokenizer();
  const Tensor zeros = m_ctx.tensor({1}, std::vector<float>{0.0f});  // a step after the prompt adds one row
  std::vector<std::vector<std::shared_ptr<const Tensor>>> maps(
      static_cast<std::size_t>(config.layers),
      std::vector<std::shared_ptr<const Tensor>>(static_cast<std::size_t>(config.heads)));
  std::vector<std::string> tokens;
  std::vector<int32_t> generated;
  int64_t positions = 0;
  const auto start = std::chrono::steady_clock::now();
  AttentionSet latest;
  std::string timing, notes;
  if (const std::string warning = m_model.contextWarning(); !warning.empty()) notes += "; warning: " + warning;
  // An empty prompt is the model's start token alone, as in the CLI and Python. A prompt that leaves
  // no room to write keeps its last tokens, room for --max-tokens new ones (at most half the
  // context), and says so.
  std::vector<int32_t> ids = tokenizer.encode(prompt, {.addSpecial = true, .parseSpecial = true});
  const auto context = static_cast<std::size_t>(m_model.contextLength());
  const std::size_t room = std::min(static_cast<std::size_t>(m_maxTokens), context / 2);
  if (ids.size() + room > context) {
    const std::size_t kept = context - room;
    notes += "; the prompt's " + std::to_string(ids.size()) + " tokens were cut to their last " + std::to_string(kept) +
             ", leaving room for " + std::to_string(room) + " new ones in a context of " + std::to_string(context);
    ids.erase(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(kept));
  }

  GenerateOptions options;
  options.maxTokens = m_maxTokens;
  options.attention = true;
  options.attentionOnDevice = true;
  options.onStep = [&](const GenerationStep& step) {
    for (std::size_t l = 0; l < maps.size(); ++l)
      for (std::size_t h = 0; h < maps[l].size(); ++h)
        maps[l][h] = grownHead(m_ctx, maps[l][h], positions, step.weights[l], static_cast<int64_t>(h), zeros);
    positions += static_cast<int64_t>(step.ids.size());
    for (int32_t id : step.ids) tokens.push_back(tokenLabel(tokenizer, id));
    if (step.next >= 0) generated.push_back(step.next);  // none when only the prompt runs

    AttentionKind kind;
    kind.id = "attention";
    kind.title = "Self-attention of " + (config.name.empty() ? config.architecture : config.name) + " (causal)";
    kind.rowTokens = tokens;
    kind.colTokens = tokens;
    kind.causal = true;
    for (const auto& heads : maps) {
      std::vector<DeviceMap> layer;
      for (const auto& head : heads) layer.push_back({head, 0, positions, positions});
      kind.layers.push_back(std::move(layer));
    }
    AttentionSet set;
    set.kinds.push_back(std::move(kind));
    set.output = tokenizer.decode(generated);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char counted[96];
    std::snprintf(counted, sizeof counted, "%lld positions in %.2f s", static_cast<long long>(positions), seconds);
    timing = counted;
    set.status = m_name + ": generating on " + m_ctx.info().name + ", " + timing + notes;
    latest = set;
    publish(std::move(set));
    return true;
  };
  const Generation g = m_model.generate(ids, options);
  if (g.end == GenerationEnd::ContextFull)
    notes += "; stopped: the context of " + std::to_string(m_model.contextLength()) + " positions is full";
  latest.status = m_name + ": generated on " + m_ctx.info().name + ", " + timing + notes;
  return latest;
}

}  // namespace vkattn::viewer
