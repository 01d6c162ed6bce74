#version 450
// Draws each row's next token from its logits, as the host's TokenSampler draws it from the same
// uniform number: the logits softcapped, the top k kept, then the shortest prefix (by descending
// logit, ties to the lower id) whose probability reaches top p, and the token where u times the
// kept mass falls in that prefix's running sum. Without the logits leaving the device.
// Bindings: 0 logits (f32, read), 1 uniforms (f32 [rows], read), 2 ids (int32, write), 3 status.
// Push: SampleTokensParams. Spec: 0 workgroup size (a whole workgroup per row; full subgroups).
// Dispatch: one workgroup per row.
//
// The SAMPLE_CANDIDATES most likely tokens (fewer when top k asks for fewer) are found by a radix
// select on order-preserving keys (four passes of 8 bits: counts in shared memory), gathered
// (ties at the threshold by lowest id), sorted by a bitonic sort, weighted by
// exp((l - max) / temperature) and summed in order. The draw is decided there when the kept
// tokens' mass is known and the draw lands among the candidates; otherwise ids[r] = -1 and the
// host draws from the logits with the same number. Status bit 0: NaN in the logits; bit 1: a
// uniform outside [0, 1).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_WORKGROUP_SIZE) const uint WG_SIZE = 256;

layout(push_constant) uniform Push { SampleTokensParams p; };
layout(std430, set = 0, binding = SAMPLE_BINDING_LOGITS) readonly buffer Logits { float logits[]; };
layout(std430, set = 0, binding = SAMPLE_BINDING_UNIFORMS) readonly buffer Uniforms { float uniforms[]; };
layout(std430, set = 0, binding = SAMPLE_BINDING_IDS) writeonly buffer Ids { int ids[]; };
STATUS_BUFFER(SAMPLE_BINDING_STATUS)

const uint NONE = 0xffffffffu;
shared uint s_key[SAMPLE_CANDIDATES];
shared uint s_id[SAMPLE_CANDIDATES];
shared float s_mass[SAMPLE_CANDIDATES];  // each candidate's weight, then the running sum
shared uint s_hist[256];
shared float s_float[64];  // [subgroup] partials
shared uint s_uint[64];
shared uint s_word[3];

// The invocation's place in the row's team, ordered by subgroup (a scan across subgroups follows it).
uint lane() { return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID; }

float logitAt(uint i) {
  const float v = logits[i];
  return p.softcap > 0.0 ? p.softcap * stableTanh(v / p.softcap) : v;
}

// Larger floats give larger keys (NaN aside).
uint orderedKey(float v) {
  const uint b = floatBitsToUint(v);
  return (b & 0x80000000u) != 0u ? ~b : b | 0x80000000u;
}
float keyValue(uint k) { return uintBitsToFloat((k & 0x80000000u) != 0u ? k & 0x7fffffffu : ~k); }

float groupMax(float v) {
  v = subgroupMax(v);
  if (subgroupElect()) s_float[gl_SubgroupID] = v;
  barrier();
  float m = -1.0 / 0.0;
  for (uint i = 0; i < gl_NumSubgroups; ++i) m = max(m, s_float[i]);
  barrier();
  return m;
}

float groupSum(float v) {
  v = subgroupAdd(v);
  if (subgroupElect()) s_float[gl_SubgroupID] = v;
  barrier();
  float total = 0.0;
  for (uint i = 0; i < gl_NumSubgroups; ++i) total += s_float[i];
  barrier();
  return total;
}

// The sum of v over the lanes before this one; `total` receives the sum over all.
uint exclusiveSum(uint v, out uint total) {
  const uint inSubgroup = subgroupExclusiveAdd(v);
  const uint subgroupTotal = subgroupAdd(v);
  if (subgroupElect()) s_uint[gl_SubgroupID] = subgroupTotal;
  barrier();
  uint before = 0u;
  total = 0u;
  for (uint i = 0; i < gl_NumSubgroups; ++i) {
    if (i < gl_SubgroupID) before += s_uint[i];
    total += s_uint[i];
  }
  barrier();
  return before + inSubgroup;
}

float exclusiveSumF(float v) {
  const float inSubgroup = subgroupExclusiveAdd(v);
  const float subgroupTotal = subgroupAdd(v);
  if (subgroupElect()) s_float[gl_SubgroupID] = subgroupTotal;
  barrier();
  float before = 0.0;
  for (uint i = 0; i < gl_SubgroupID; ++i) before += s_float[i];
  barrier();
  return before + inSubgroup;
}

// The lowest index i < count with s_mass[i] > bound (strictly: `above`), or NONE.
uint firstMassPast(uint count, float bound, bool strictly) {
  if (lane() == 0u) s_word[0] = NONE;
  barrier();
  for (uint i = lane(); i < count; i += WG_SIZE)
    if (strictly ? s_mass[i] > bound : s_mass[i] >= bound) atomicMin(s_word[0], i);
  barrier();
  const uint first = s_word[0];
  barrier();
  return first;
}

// Candidate a goes before b: larger logit first, then the lower id.
bool precedes(uint a, uint b) { return s_key[a] > s_key[b] || (s_key[a] == s_key[b] && s_id[a] < s_id[b]); }

int sampleRow(uint row) {
  const uint first = row * p.cols;
  const uint cols = p.cols;
  const uint keep = p.temperature == 0.0 ? 1u : (p.topK == 0u ? cols : min(p.topK, cols));
  const uint count = min(keep, uint(SAMPLE_CANDIDATES));

  float top = -1.0 / 0.0;
  bool nan = false;
  for (uint c = lane(); c < cols; c += WG_SIZE) {
    const float v = logitAt(first + c);
    nan = nan || isnan(v);
    top = max(top, v);
  }
  top = groupMax(top);
  if (subgroupAny(nan) && subgroupElect()) atomicOr(status[p.statusSlot], 1u);
  const float u = uniforms[row];
  if (!(u >= 0.0 && u < 1.0) && lane() == 0u) atomicOr(status[p.statusSlot], 2u);

  // The count-th largest key (the threshold), and how many tokens equal to it are taken.
  uint prefix = 0u, mask = 0u, ties = count;
  float everyMass = 0.0;  // the whole row's weight (the first pass sums it)
  for (int shift = 24; shift >= 0; shift -= 8) {
    for (uint b = lane(); b < 256u; b += WG_SIZE) s_hist[b] = 0u;
    barrier();
    float mass = 0.0;
    for (uint c = lane(); c < cols; c += WG_SIZE) {
      const float v = logitAt(first + c);
      if (shift == 24 && p.temperature > 0.0) mass += v == top ? 1.0 : exp((v - top) / p.temperature);
      const uint k = orderedKey(v);
      if ((k & mask) == prefix) atomicAdd(s_hist[(k >> uint(shift)) & 255u], 1u);
    }
    if (shift == 24) everyMass = groupSum(mass);
    barrier();
    if (lane() == 0u) {
      uint above = 0u, b = 255u;
      while (b > 0u && above + s_hist[b] < ties) above += s_hist[b--];
      s_word[1] = b;
      s_word[2] = ties - above;
    }
    barrier();
    prefix |= s_word[1] << uint(shift);
    mask |= 255u << uint(shift);
    ties = s_word[2];
    barrier();
  }

  // Gather: the keys above the threshold in any order, the first `ties` equal to it by id.
  const uint above = count - ties;
  if (lane() == 0u) s_word[0] = 0u;
  barrier();
  uint tiesSeen = 0u;
  for (uint base = 0u; base < cols; base += WG_SIZE) {
    const uint c = base + lane();
    const uint k = c < cols ? orderedKey(logitAt(first + c)) : 0u;
    if (c < cols && k > prefix) {
      const uint slot = atomicAdd(s_word[0], 1u);
      s_key[slot] = k;
      s_id[slot] = c;
    }
    const bool tie = c < cols && k == prefix;
    uint tiesHere;
    const uint before = exclusiveSum(tie ? 1u : 0u, tiesHere);
    if (tie && tiesSeen + before < ties) {
      s_key[above + tiesSeen + before] = k;
      s_id[above + tiesSeen + before] = c;
    }
    tiesSeen += tiesHere;
  }
  uint width = 1u;
  while (width < count) width <<= 1;
  for (uint i = count + lane(); i < width; i += WG_SIZE) {
    s_key[i] = 0u;
    s_id[i] = NONE;
  }
  barrier();

  // Bitonic sort of the candidates (ascending in `precedes`).
  for (uint size = 2u; size <= width; size <<= 1)
    for (uint stride = size >> 1; stride > 0u; stride >>= 1) {
      for (uint t = lane(); t < width / 2u; t += WG_SIZE) {
        const uint i = 2u * stride * (t / stride) + t % stride, j = i + stride;
        if ((i & size) == 0u ? precedes(j, i) : precedes(i, j)) {
          const uint key = s_key[i], id = s_id[i];
          s_key[i] = s_key[j];
          s_id[i] = s_id[j];
          s_key[j] = key;
          s_id[j] = id;
        }
      }
      barrier();
    }
  if (p.temperature == 0.0) return int(s_id[0]);

  // Weights and their running sum in order: each lane sums a run of consecutive candidates.
  const uint run = (count + WG_SIZE - 1u) / WG_SIZE;
  const uint start = min(lane() * run, count), end = min(start + run, count);
  float own = 0.0;
  for (uint i = start; i < end; ++i) {
    const float v = keyValue(s_key[i]);
    s_mass[i] = v == top ? 1.0 : exp((v - top) / p.temperature);
    own += s_mass[i];
  }
  float sum = exclusiveSumF(own);
  for (uint i = start; i < end; ++i) {
    sum += s_mass[i];
    s_mass[i] = sum;
  }
  barrier();

  // The kept tokens' mass where it is known: the candidates are the top k, or the top k is the row.
  const bool known = count == keep || keep == cols;
  if (!known) return -1;
  const float keepMass = count == keep ? s_mass[count - 1u] : everyMass;
  uint kept = keep;  // how many tokens the nucleus keeps
  if (p.topP < 1.0) {
    const uint last = firstMassPast(count, p.topP * keepMass, false);
    if (last == NONE) return -1;  // the nucleus reaches past the candidates
    kept = last + 1u;
  }
  const float keptMass = kept <= count ? s_mass[kept - 1u] : keepMass;
  const uint at = firstMassPast(min(kept, count), u * keptMass, true);
  if (at != NONE) return int(s_id[at]);
  return kept <= count ? int(s_id[kept - 1u]) : -1;
}

void main() {
  const uint row = flatGroupIndex();
  if (row >= p.rows) return;
  const int id = sampleRow(row);
  if (lane() == 0u) ids[row] = id;
}
