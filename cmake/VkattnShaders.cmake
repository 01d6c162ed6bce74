# Compiles GLSL shaders to SPIR-V at build time and embeds them in a generated registry. The
# stage comes from the source's extension: .comp (the kernels), .vert and .frag (the viewer's
# drawing).
#
# vkattn_shader(<id> SOURCE <file.comp> [DEFINES A=1 B ...] [REGISTRY <name>] [INCLUDE_DIRS <dir> ...]
#               [PREBUILT] [TARGET_ENV <env>])
#   Adds one SPIR-V module named <id> to registry <name> (default: runtime). Several ids may come
#   from one source with different defines. A relative SOURCE is under shaders/ for the runtime's
#   registry and under the calling directory for any other; INCLUDE_DIRS defaults to
#   shaders/include and base/include/vkattn/core (block_layouts.h) for the runtime and to the
#   source's include/ folder otherwise.
#   PREBUILT: the module is not compiled here but taken from shaders/prebuilt/<id>.spv.inc, which
#   tools/drivers/prebuilt_spirv.sh compiles from the same source and defines with a newer glslc (Debian
#   12's cannot compile GL_KHR_cooperative_matrix); the prebuilt_spirv_sources test fails when a
#   source changed since.
#   TARGET_ENV: glslc's --target-env (default vulkan1.2, SPIR-V 1.5); vulkan1.3 (SPIR-V 1.6) for
#   modules whose extensions need it (GL_NV_cooperative_matrix2), which only devices of Vulkan 1.3
#   load.
# vkattn_shader_registry(<target> [REGISTRY <name>])
#   Compiles every id of the registry for <target> and generates <name>_shader_table.inc in the
#   build folder's generated/ (on <target>'s include path): one word array per id, then
#   `const ShaderEntry kShaderTable[]` naming them. The registry's source beside its header
#   includes it inside its own namespace, after declaring ShaderEntry (the runtime's
#   src/shader_registry.cpp; the viewer's src/render/viewer_shaders.cpp), so a client of the
#   runtime (the viewer) keeps its kernels in a registry of its own and hands their words to
#   PipelineDesc::code.
#   For the runtime's registry it also generates runtime_shader_ids.hpp: one constant
#   `shaders::<id>` (a ShaderId, src/shader_id.hpp) per module, and one StorageVariants
#   `shaders::<name>` per module built for both f32 and f16 storage (<name> is the id without its
#   _f32: attention_rows, attention_rows_kv_q8_0). The runtime asks for modules through them, so
#   a module that is not built is a compile error, not a missing name at run time.
# vkattn_shader_formats(<family> [STORAGE] FORMATS <format>...)
#   Declares a runtime family built once per storage format (f16, bf16, q8_0, q4_k, ...): the ids
#   <family>_<format>, or with STORAGE the f32/f16 pairs of that name (linear_q_tiled_q4_k,
#   attention_rows_kv_q8_0). The ids header
#   then has `shaders::<family>_by_format`, a ByFormat table (src/shader_id.hpp) from each format's
#   DType to its module or pair, which the ops look formats up in instead of switching over them.
#   Configuring fails when a declared format's module is not built.
# vkattn_storage_pairs_from_sources()
#   Every shaders/*.comp whose comment lines include `// Storage: f32, f16` is built as the pair
#   <stem>_f32 and <stem>_f16 (STORAGE_F16), shaders::<stem> in the ids header: a kernel that is
#   plain f32/f16 storage declares its modules where it is written, and a new one edits no CMake
#   file (the glob finds a new .comp when the build runs; a line added to an existing one takes
#   effect at the next configure). Modules built with other defines (block formats, cooperative
#   matrices, a second variant of the same source) are vkattn_shader calls in shaders/CMakeLists.txt.

set(VKATTN_SHADER_DIR ${CMAKE_CURRENT_LIST_DIR}/../shaders)
set(VKATTN_BLOCK_LAYOUTS_DIR ${CMAKE_CURRENT_LIST_DIR}/../base/include/vkattn/core)

function(vkattn_shader id)
  cmake_parse_arguments(ARG "PREBUILT" "SOURCE;REGISTRY;TARGET_ENV" "DEFINES;INCLUDE_DIRS" ${ARGN})
  if(NOT ARG_TARGET_ENV)
    set(ARG_TARGET_ENV vulkan1.2)
  endif()
  if(NOT ARG_REGISTRY)
    set(ARG_REGISTRY runtime)
  endif()
  set(src ${ARG_SOURCE})
  if(NOT IS_ABSOLUTE ${src})
    if(ARG_REGISTRY STREQUAL "runtime")
      set(src ${VKATTN_SHADER_DIR}/${src})
    else()
      set(src ${CMAKE_CURRENT_SOURCE_DIR}/${src})
    endif()
  endif()
  if(NOT ARG_INCLUDE_DIRS)
    if(ARG_REGISTRY STREQUAL "runtime")
      # (and the folder of vkattn/core/block_layouts.h, the block formats' layouts C++ shares)
      set(ARG_INCLUDE_DIRS ${VKATTN_SHADER_DIR}/include ${VKATTN_BLOCK_LAYOUTS_DIR})
    else()
      get_filename_component(src_dir ${src} DIRECTORY)
      set(ARG_INCLUDE_DIRS ${src_dir}/include)
    endif()
  endif()
  # Only recorded here; the commands are made in the directory of the target that embeds them
  # (custom command outputs are visible only to targets of their own directory).
  set(key VKATTN_SHADER_${ARG_REGISTRY}_${id})
  set_property(GLOBAL APPEND PROPERTY VKATTN_SHADER_IDS_${ARG_REGISTRY} ${id})
  set_property(GLOBAL PROPERTY ${key}_SOURCE ${src})
  set_property(GLOBAL PROPERTY ${key}_DEFINES "${ARG_DEFINES}")
  set_property(GLOBAL PROPERTY ${key}_INCLUDE_DIRS "${ARG_INCLUDE_DIRS}")
  set_property(GLOBAL PROPERTY ${key}_PREBUILT ${ARG_PREBUILT})
  set_property(GLOBAL PROPERTY ${key}_TARGET_ENV ${ARG_TARGET_ENV})
endfunction()

# The runtime's modules keep their historic place, spirv/<id>.spv.inc; other registries get a
# folder of their own so that equal ids cannot collide.
function(_vkattn_spirv_path registry id out_var)
  if(registry STREQUAL "runtime")
    set(${out_var} ${CMAKE_BINARY_DIR}/spirv/${id}.spv.inc PARENT_SCOPE)
  else()
    set(${out_var} ${CMAKE_BINARY_DIR}/spirv/${registry}/${id}.spv.inc PARENT_SCOPE)
  endif()
endfunction()

function(_vkattn_compile_shader registry id out_var)
  set(key VKATTN_SHADER_${registry}_${id})
  get_property(prebuilt GLOBAL PROPERTY ${key}_PREBUILT)
  if(prebuilt)  # checked in, compiled by tools/drivers/prebuilt_spirv.sh
    set(${out_var} ${VKATTN_SHADER_DIR}/prebuilt/${id}.spv.inc PARENT_SCOPE)
    return()
  endif()
  get_property(src GLOBAL PROPERTY ${key}_SOURCE)
  get_property(defines GLOBAL PROPERTY ${key}_DEFINES)
  get_property(include_dirs GLOBAL PROPERTY ${key}_INCLUDE_DIRS)
  get_property(target_env GLOBAL PROPERTY ${key}_TARGET_ENV)
  _vkattn_spirv_path(${registry} ${id} out)
  get_filename_component(out_dir ${out} DIRECTORY)
  set(defs)
  foreach(d IN LISTS defines)
    list(APPEND defs -D${d})
  endforeach()
  set(includes)
  foreach(dir IN LISTS include_dirs)
    list(APPEND includes -I ${dir})
  endforeach()
  get_filename_component(ext ${src} LAST_EXT)
  if(ext STREQUAL ".vert")
    set(stage vertex)
  elseif(ext STREQUAL ".frag")
    set(stage fragment)
  else()
    set(stage compute)
  endif()
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
    COMMAND ${VKATTN_GLSLC_LAUNCHER} ${GLSLC} --target-env=${target_env} -O -mfmt=num -fshader-stage=${stage}
            ${includes} ${defs}
            -MD -MF ${out}.d -MT ${out} -o ${out} ${src}
    DEPENDS ${src}
    DEPFILE ${out}.d
    COMMENT "glslc ${registry}/${id}"
    VERBATIM)
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()

function(_vkattn_shader_ids ids header)
  set(body "// Generated by cmake/VkattnShaders.cmake from shaders/CMakeLists.txt. Do not edit.\n")
  string(APPEND body "// One id per embedded module; one pair per module built for f32 and f16 storage.\n")
  string(APPEND body "#pragma once\n\n#include \"shader_id.hpp\"\n\nnamespace vkattn::detail::shaders {\n\n")
  set(pairs "")
  foreach(id IN LISTS ids)
    if(NOT id MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "shader id '${id}' is not a C++ name")
    endif()
    string(APPEND body "inline constexpr ShaderId ${id}{\"${id}\"};\n")
  endforeach()
  string(APPEND body "\n")
  foreach(id IN LISTS ids)
    if(id MATCHES "^(.*)_f32(.*)$")
      set(name "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
      set(twin "${CMAKE_MATCH_1}_f16${CMAKE_MATCH_2}")
      if(twin IN_LIST ids)
        if(name IN_LIST ids)
          message(FATAL_ERROR "shader id '${name}' is also the name of the pair ${id} / ${twin}")
        endif()
        string(APPEND body "inline constexpr StorageVariants ${name}{${id}, ${twin}};\n")
        list(APPEND pairs ${name})
      endif()
    endif()
  endforeach()
  string(APPEND body "\n")
  get_property(families GLOBAL PROPERTY VKATTN_SHADER_FORMAT_FAMILIES)
  foreach(family IN LISTS families)
    get_property(storage GLOBAL PROPERTY VKATTN_SHADER_FORMATS_${family}_STORAGE)
    get_property(formats GLOBAL PROPERTY VKATTN_SHADER_FORMATS_${family})
    set(rows "")
    foreach(format IN LISTS formats)
      set(module ${family}_${format})
      set(built ${ids})
      if(storage)
        set(built ${pairs})
      endif()
      if(NOT module IN_LIST built)
        message(FATAL_ERROR "vkattn_shader_formats(${family}): ${format} has no module ${module}")
      endif()
      string(TOUPPER ${format} enumerator)
      list(APPEND rows "{DType::${enumerator}, ${module}}")
    endforeach()
    list(LENGTH formats count)
    list(JOIN rows ", " rows)
    set(type ShaderId)
    if(storage)
      set(type StorageVariants)
    endif()
    string(APPEND body "inline constexpr ByFormat<${type}, ${count}> ${family}_by_format{{{${rows}}}};\n")
  endforeach()
  string(APPEND body "\n}  // namespace vkattn::detail::shaders\n")
  file(GENERATE OUTPUT ${header} CONTENT "${body}")
endfunction()

function(vkattn_shader_formats family)
  cmake_parse_arguments(ARG "STORAGE" "" "FORMATS" ${ARGN})
  if(NOT ARG_FORMATS)
    message(FATAL_ERROR "vkattn_shader_formats(${family}): FORMATS is required")
  endif()
  set_property(GLOBAL APPEND PROPERTY VKATTN_SHADER_FORMAT_FAMILIES ${family})
  set_property(GLOBAL PROPERTY VKATTN_SHADER_FORMATS_${family} ${ARG_FORMATS})
  set_property(GLOBAL PROPERTY VKATTN_SHADER_FORMATS_${family}_STORAGE ${ARG_STORAGE})
endfunction()

function(vkattn_storage_pairs_from_sources)
  file(GLOB sources CONFIGURE_DEPENDS ${VKATTN_SHADER_DIR}/*.comp)
  list(SORT sources)
  foreach(src IN LISTS sources)
    file(STRINGS ${src} storage REGEX "^// Storage: ")
    if(NOT storage)
      continue()
    endif()
    get_filename_component(stem ${src} NAME_WE)
    if(NOT storage STREQUAL "// Storage: f32, f16")
      message(FATAL_ERROR "${src}: '${storage}' is not a storage declaration this build knows "
                          "(the one form is `// Storage: f32, f16`)")
    endif()
    vkattn_shader(${stem}_f32 SOURCE ${src})
    vkattn_shader(${stem}_f16 SOURCE ${src} DEFINES STORAGE_F16)
  endforeach()
endfunction()

function(vkattn_shader_registry target)
  cmake_parse_arguments(ARG "" "REGISTRY" "" ${ARGN})
  if(NOT ARG_REGISTRY)
    set(ARG_REGISTRY runtime)
  endif()
  get_property(ids GLOBAL PROPERTY VKATTN_SHADER_IDS_${ARG_REGISTRY})
  if(NOT ids)
    message(FATAL_ERROR "vkattn_shader_registry: registry '${ARG_REGISTRY}' has no shaders")
  endif()
  set(outs)
  foreach(id IN LISTS ids)
    _vkattn_compile_shader(${ARG_REGISTRY} ${id} out)
    list(APPEND outs ${out})
  endforeach()
  set(table ${CMAKE_BINARY_DIR}/generated/${ARG_REGISTRY}_shader_table.inc)
  set(body "// Generated by cmake/VkattnShaders.cmake. Do not edit.\n")
  foreach(id out IN ZIP_LISTS ids outs)
    string(APPEND body "const uint32_t k_${id}[] = {\n#include \"${out}\"\n};\n")
  endforeach()
  string(APPEND body "\nconst ShaderEntry kShaderTable[] = {\n")
  foreach(id IN LISTS ids)
    string(APPEND body "    {\"${id}\", std::span<const uint32_t>(k_${id})},\n")
  endforeach()
  string(APPEND body "};\n")
  file(GENERATE OUTPUT ${table} CONTENT "${body}")
  if(ARG_REGISTRY STREQUAL "runtime")
    _vkattn_shader_ids("${ids}" ${CMAKE_BINARY_DIR}/generated/runtime_shader_ids.hpp)
  endif()
  # The SPIR-V files as sources (not compiled): built before the target's objects, which then
  # track them through the compiler's depfiles.
  target_sources(${target} PRIVATE ${outs})
  target_include_directories(${target} PRIVATE ${CMAKE_BINARY_DIR}/generated)
endfunction()
