// Where the translation model's files are found at run time. Nothing here points into the source
// tree: the folder comes from the environment, from beside the running executable, or from the
// install prefix.
#pragma once

#include <filesystem>
#include <vector>

namespace vkattn {

// The folders searched, in order: $VKATTN_MODEL_DIR (when set, the only one); share/vkattn/models
// beside the executable (the build tree) and ../share/vkattn/models (an installed bin/); the
// install prefix's share/vkattn/models.
std::vector<std::filesystem::path> modelDirectoryCandidates();

// The first candidate that holds en_fr.safetensors, else the first candidate (so an error names it).
std::filesystem::path defaultModelDirectory();

}  // namespace vkattn
