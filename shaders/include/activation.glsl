// Activation functions in fp32, selected by a VKATTN_ACT_* id (push_constants.h). GLSL has no
// erf, and tanh of large arguments may come out as inf / inf = NaN on some drivers, so GELU and its
// tanh form are written out here in forms that stay finite and keep their relative accuracy.
#ifndef VKATTN_ACTIVATION_GLSL
#define VKATTN_ACTIVATION_GLSL

// erfc(z) for z >= 0 with a relative error below 1.2e-7 (Numerical Recipes' erfcc, a Chebyshev
// fit), plus the fp32 rounding of exp's argument (relative ~6e-8 z^2). Written via erfc, exact
// GELU keeps its relative accuracy in the negative tail, where 1 + erf(x) would cancel.
float erfcNonNegative(float z) {
  const float t = 1.0 / (1.0 + 0.5 * z);
  float poly = 0.17087277;
  poly = fma(t, poly, -0.82215223);
  poly = fma(t, poly, 1.48851587);
  poly = fma(t, poly, -1.13520398);
  poly = fma(t, poly, 0.27886807);
  poly = fma(t, poly, -0.18628806);
  poly = fma(t, poly, 0.09678418);
  poly = fma(t, poly, 0.37409196);
  poly = fma(t, poly, 1.00002368);
  return t * exp(-z * z - 1.26551223 + t * poly);
}

// 0.5 v (1 + erf(v / sqrt 2)) = 0.5 v erfc(-v / sqrt 2).
float geluExact(float v) {
  const float z = v * 0.7071067811865476;
  const float e = erfcNonNegative(abs(z));
  return 0.5 * v * (z >= 0.0 ? 2.0 - e : e);
}

// 1 / (1 + e^-x) through e^-|x| <= 1: never inf / inf, and no cancellation for negative x.
float sigmoidStable(float x) {
  const float t = exp(-abs(x));
  return (x >= 0.0 ? 1.0 : t) / (1.0 + t);
}

float activate(float v, uint act) {
  if (act == VKATTN_ACT_RELU) return max(v, 0.0);
  if (act == VKATTN_ACT_GELU) return geluExact(v);
  if (act == VKATTN_ACT_GELU_TANH)
    return v * sigmoidStable(2.0 * 0.7978845608028654 * (v + 0.044715 * v * v * v));  // 0.5 (1 + tanh u) = sigmoid(2u)
  if (act == VKATTN_ACT_SILU) return v / (1.0 + exp(-v));
  return v;
}

#endif
