// A sum over every invocation of the workgroup: subgroupAdd, then the subgroups' partial sums
// through shared memory. The includer declares WG_SIZE (its workgroup size).
#ifndef VKATTN_WORKGROUP_SUM_GLSL
#define VKATTN_WORKGROUP_SUM_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

shared float workgroupPartials[WG_SIZE];  // [subgroup]

// Every invocation calls this, in uniform control flow; each gets the total.
float workgroupSum(float v) {
  const float s = subgroupAdd(v);
  if (subgroupElect()) workgroupPartials[gl_SubgroupID] = s;
  barrier();
  float total = 0.0;
  for (uint i = 0u; i < gl_NumSubgroups; ++i) total += workgroupPartials[i];
  barrier();  // read before the next sum's partials land
  return total;
}

#endif
