// The workgroup of a dispatch that finishes last (the single-pass reduction's "last block"): each
// workgroup, its buffer writes done, makes them available and counts itself done on an atomic
// counter; the one that counts last sees every other workgroup's writes to `coherent` buffers and
// can finish what needs them all (linear_tail.glsl: a step over whole output rows), then sets the
// counter back to 0 for the next dispatch. No workgroup waits for another, so nothing depends on
// the order or concurrency in which the device runs them.
// The includer defines LAST_WORKGROUP_BINDING (a buffer whose first word is 0 before the dispatch).
#ifndef VKATTN_LAST_WORKGROUP_GLSL
#define VKATTN_LAST_WORKGROUP_GLSL

layout(std430, set = 0, binding = LAST_WORKGROUP_BINDING) coherent buffer Finished { uint finishedWorkgroups; };
shared bool finishedLast_;

// Called once by every invocation of each of `workgroups` workgroups, in uniform control flow,
// after its buffer writes. True in every invocation of the workgroup that counted last.
bool finishedLast(uint workgroups) {
  memoryBarrierBuffer();  // this invocation's writes are available before its workgroup counts
  barrier();
  if (gl_LocalInvocationIndex == 0u) {
    finishedLast_ = atomicAdd(finishedWorkgroups, 1u) == workgroups - 1u;
    if (finishedLast_) atomicExchange(finishedWorkgroups, 0u);
  }
  barrier();
  const bool last = finishedLast_;
  memoryBarrierBuffer();  // the other workgroups' writes are visible to the loads after this
  return last;
}

#endif
