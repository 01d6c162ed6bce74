// RoPE's arithmetic shared by rope.comp and rope_append.comp: which two features of a head a pair
// rotates, and a position's angle computed exactly modulo one turn in 64-bit fixed point (two
// 32-bit words, umulExtended), so accuracy does not decay with the position: the host passes each
// pair's step frac(invFreq / 2pi) * 2^64 as (high word, low word) (ropePhaseSteps in rope.cpp).
#ifndef VKATTN_ROPE_ANGLE_GLSL
#define VKATTN_ROPE_ANGLE_GLSL

const float TWO_PI = 6.28318530717958647692;

// Angle in [-pi, pi) of position * step, with step a 64-bit fraction of a turn.
float rotationAngle(int position, uvec2 step) {
  uint n = uint(abs(position));
  uint carry, low;
  umulExtended(n, step.y, carry, low);
  uint high = n * step.x + carry;  // wraps mod 2^32: whole turns drop out
  float turns = float(int(high)) * (1.0 / 4294967296.0) + float(low) * (1.0 / 18446744073709551616.0);
  float angle = turns * TWO_PI;
  return position < 0 ? -angle : angle;
}

// The features i0, i1 of pair `pair` (of headDim / 2): (2i, 2i + 1) when interleaved, else
// (i, i + rotaryDim / 2); pairs past the rotary ones name two pass-through features each.
void ropePairFeatures(uint pair, uint rotaryPairs, uint rotaryDim, bool interleaved, out uint i0, out uint i1) {
  if (pair >= rotaryPairs) {
    i0 = rotaryDim + 2u * (pair - rotaryPairs);
    i1 = i0 + 1u;
  } else if (interleaved) {
    i0 = 2u * pair;
    i1 = i0 + 1u;
  } else {
    i0 = pair;
    i1 = pair + rotaryPairs;
  }
}

#endif
