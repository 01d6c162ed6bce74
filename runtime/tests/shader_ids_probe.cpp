// Compiled, not run, by the shader_ids_* tests: asks for shaders::MODULE.of(DType::F32). A pair
// the shader build made compiles; one it did not make (a kernel built for f16 alone) must not.
#include "runtime_shader_ids.hpp"

vkattn::detail::ShaderId probe() {
  return vkattn::detail::shaders::MODULE.of(vkattn::DType::F32);
}
