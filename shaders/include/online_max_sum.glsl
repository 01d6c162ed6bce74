// A lane's running (max m, sum s of exp(v - m)) over the values it has seen, in one read of a row
// (online softmax): softmax.comp and log_softmax.comp merge the lanes' pairs with rowMax and
// rowSum (row_reduce.glsl) as s * exp(m - rowMax). -inf values contribute nothing.
#ifndef VKATTN_ONLINE_MAX_SUM_GLSL
#define VKATTN_ONLINE_MAX_SUM_GLSL

const float NEG_INF = -1.0 / 0.0;

// Running (max m, sum s of exp(v - m)) over logits seen so far; -inf logits contribute nothing.
void accumulate(inout float m, inout float s, float v) {
  if (v > m) {
    s = s * exp(m - v) + 1.0;
    m = v;
  } else if (v != NEG_INF) {
    s += exp(v - m);
  }
}

void accumulate4(inout float m, inout float s, vec4 v) {
  const float top = max(max(v.x, v.y), max(v.z, v.w));
  if (top == NEG_INF) return;
  if (top > m) {
    s *= exp(m - top);
    m = top;
  }
  const vec4 e = exp(v - m);  // exp(-inf) = 0 for masked entries
  s += (e.x + e.y) + (e.z + e.w);
}

#endif
