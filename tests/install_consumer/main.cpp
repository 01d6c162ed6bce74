// Softmax of three logits through an installed vkattn; prints the probabilities and checks them.
#include <cmath>
#include <cstdio>
#include <vector>

#include <vkattn/vkattn.hpp>

int main() {
  vkattn::Context ctx;
  std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  auto y = vkattn::softmax(ctx, ctx.tensor({1, 3}, logits)).download();
  const double sum = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  int bad = 0;
  for (int i = 0; i < 3; ++i) {
    const double expected = std::exp(1.0 + i) / sum;
    std::printf("p[%d] = %.7f (expected %.7f)\n", i, y[i], expected);
    if (std::fabs(y[i] - expected) > 1e-6) ++bad;
  }
  return bad;
}
