// Reading and writing the glslc -mfmt=num files the build embeds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace vkattn::spirv {

std::vector<uint32_t> readNumberTextFile(const std::filesystem::path& path);
void writeNumberTextFile(const std::filesystem::path& path, std::span<const uint32_t> words);

}  // namespace vkattn::spirv
