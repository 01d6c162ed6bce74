// The online softmax of the cooperative-matrix-2 attention kernels, on flexible matrices of either
// scope (attention_coopmat2.comp: subgroup; attention_coopmat2_wg.comp: workgroup): the per-element
// logit, the row reductions of one key tile and the output and lse of a finished row. The includer
// declares `p` (AttentionParams) and includes attention_common.glsl first; its matrix types are
// its own, the functions here work on their elements.
// Logits are in log2 units; masked keys take the finite sentinel MASKED and running maxes start at
// M_START (attention_common.glsl), so no step relies on IEEE -inf arithmetic.
#ifndef VKATTN_ATTENTION_COOPMAT2_SOFTMAX_GLSL
#define VKATTN_ATTENTION_COOPMAT2_SOFTMAX_GLSL

bool nanBias = false;  // set by logitAt

// Element (row, col) of S for query row min(iFirst + row, iLast) and key j0 + col: scaled (log2
// units), shaped and biased where the key is visible, MASKED where not.
float logitAt(const in uint row, const in uint col, const in float s, const in uint iFirst, const in uint iLast,
              const in int j0, const in uint b, const in uint h, const in int lo, const in int hi) {
  const uint i = min(iFirst + row, iLast);
  const int j = j0 + int(col);
  if (!keyVisible(b, h, i, j, lo, hi)) return MASKED;
  float x = shapeLogit(s * p.scaleLog2, b, h, i, j);
  if (HAS_BIAS) {
    const float bb = biasAt(b, h, i, j);
    nanBias = nanBias || isnan(bb);
    x = maskedLogit(x + bb * LOG2E);
  }
  return x;
}

float maxOf(const in float a, const in float b) { return max(a, b); }
float addOf(const in float a, const in float b) { return a + b; }
float maxWith(const in uint row, const in uint col, const in float a, const in float b) { return max(a, b); }
float exp2Of(const in uint row, const in uint col, const in float x) { return exp2(x); }

// One key tile of the online softmax, on S (already through logitAt) and the rows' running max
// mRun and sum lRun (each row's value in every column): m' = max(m, rowmax S), P = 2^(S - m'),
// alpha = 2^(m - m'), l = alpha l + rowsum P. Leaves P in PR_ and alpha smeared over the output's
// columns in ALPHA_O_ (all equal along a row), for O = alpha O + P V. S_TYPE_ is S's matrix type,
// O_TYPE_ the output accumulator's.
#define COOPMAT2_SOFTMAX_TILE(S_TYPE_, O_TYPE_, s_, mRun_, lRun_, PR_, ALPHA_O_) \
  S_TYPE_ PR_;                                                                   \
  O_TYPE_ ALPHA_O_;                                                              \
  {                                                                              \
    S_TYPE_ rowMax_, mNew_, alpha_, rowSum_;                                     \
    coopMatReduceNV(rowMax_, s_, gl_CooperativeMatrixReduceRowNV, maxOf);        \
    coopMatPerElementNV(mNew_, rowMax_, maxWith, mRun_);                         \
    coopMatPerElementNV(PR_, s_ - mNew_, exp2Of);                                \
    coopMatPerElementNV(alpha_, mRun_ - mNew_, exp2Of);                          \
    coopMatReduceNV(rowSum_, PR_, gl_CooperativeMatrixReduceRowNV, addOf);       \
    lRun_ = lRun_ * alpha_ + rowSum_;                                            \
    mRun_ = mNew_;                                                               \
    coopMatReduceNV(ALPHA_O_, alpha_, gl_CooperativeMatrixReduceRowNV, maxOf);   \
  }

// The output element from the unnormalised accumulator and its row's max and sum (finishRow).
float outputOf(const in uint row, const in uint col, const in float acc, const in float m, const in float l,
               const in uint h) {
  float scale, lseLog2;
  finishRow(h, m, l, scale, lseLog2);
  return scale == 0.0 ? 0.0 : acc * scale;  // 0 for a row with no (or a NaN) sum
}
float lseOf(const in uint row, const in uint col, const in float m, const in float l, const in uint h) {
  float scale, lseLog2;
  finishRow(h, m, l, scale, lseLog2);
  return lseLog2 * LN2;
}

#endif
