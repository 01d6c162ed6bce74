// `vkattn run <op>`: one kernel on .npy inputs, writing a float32 .npy output.
#include <iostream>
#include <limits>
#include <optional>

#include "arguments.hpp"
#include "commands.hpp"
#include "vkattn/io/npy.hpp"
#include "vkattn/vkattn.hpp"

namespace vkattn::cli {
using namespace vkattn::io;  // the .npy files every command here reads and writes
namespace {

Tensor load(Context& ctx, const std::string& path, DType dtype) {
  NpyArray a = readNpy(path);
  return ctx.tensor(a.shape, npyFloats(a, path), dtype);
}

}  // namespace

int runCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  Arguments a(args,
              {"--x", "--q", "--k", "--v", "--out", "--mask", "--scale", "--weight", "--bias", "--eps", "--positions",
               "--offset", "--theta", "--rotary-dim"},
              {"--f16", "--interleaved", "--causal"});
  if (a.positional().size() != 1)
    throw InvalidArgument("op", "expected one of softmax, layer_norm, rms_norm, rope, attention");
  const std::string op = a.positional()[0];
  Context ctx({.device = options.device});
  const DType dtype = a.has("--f16") ? DType::F16 : DType::F32;
  const std::string out = a.require("--out");
  if (op == "attention") {
    // q [B, Hq, Lq, Dk], k [B, Hkv, Lk, Dk], v [B, Hkv, Lk, Dv]; --mask is an additive f32 bias.
    Tensor q = load(ctx, a.require("--q"), dtype), k = load(ctx, a.require("--k"), dtype),
           v = load(ctx, a.require("--v"), dtype);
    std::optional<Tensor> bias;
    AttentionOptions o{.causal = a.has("--causal")};
    if (a.get("--scale")) o.scale = static_cast<float>(a.number("--scale", 1.0));
    if (auto m = a.get("--mask")) {
      bias = load(ctx, *m, DType::F32);
      o.bias = bias->view();
    }
    Tensor result = attention(ctx, q, k, v, o);
    writeNpy(out, result.shape(), result.download());
    std::cout << "attention " << toString(q.shape()) << " -> " << out << "\n";
    return 0;
  }
  Tensor x = load(ctx, a.require("--x"), dtype);
  Tensor y;
  if (op == "softmax") {
    std::optional<Tensor> mask;
    if (auto m = a.get("--mask")) mask = load(ctx, *m, DType::F32);
    SoftmaxOptions o{.scale = static_cast<float>(a.number("--scale", 1.0))};
    if (mask) o.mask = mask->view();
    y = softmax(ctx, x, o);
  } else if (op == "layer_norm" || op == "rms_norm") {
    std::optional<Tensor> w, b;
    if (auto p = a.get("--weight")) w = load(ctx, *p, dtype);
    if (auto p = a.get("--bias")) b = load(ctx, *p, dtype);
    if (op == "layer_norm") {
      LayerNormOptions o{.eps = static_cast<float>(a.number("--eps", 1e-5))};
      if (w) o.weight = w->view();
      if (b) o.bias = b->view();
      y = layerNorm(ctx, x, o);
    } else {
      if (b) throw InvalidArgument("--bias", "rms_norm takes no bias");
      RmsNormOptions o{.eps = static_cast<float>(a.number("--eps", 1e-6))};
      if (w) o.weight = w->view();
      y = rmsNorm(ctx, x, o);
    }
  } else if (op == "rope") {
    RopeOptions o{.theta = a.number("--theta", 10000.0),
                  .interleaved = a.has("--interleaved"),
                  .rotaryDim = a.integer("--rotary-dim", 0, 0, std::numeric_limits<int32_t>::max()),
                  .positionOffset = a.integer("--offset", 0, std::numeric_limits<int32_t>::min(),
                                              std::numeric_limits<int32_t>::max())};
    std::optional<Tensor> positions;
    if (auto p = a.get("--positions")) {
      NpyArray arr = readNpy(*p);
      positions = Tensor::fromHostInt(ctx.device(), arr.shape, npyInts(arr, *p));
      o.positions = positions->view();
    }
    y = rope(ctx, x, o);
  } else {
    throw InvalidArgument("op", "'" + op + "' is not one of softmax, layer_norm, rms_norm, rope, attention");
  }
  writeNpy(out, y.shape(), y.download());
  std::cout << op << " " << toString(x.shape()) << " -> " << out << "\n";
  return 0;
}

}  // namespace vkattn::cli
