// The attention folder: attention maps as .npy files beside their tokens as text files (one token
// per line, UTF-8, "\n" after each). Two layouts share it, and this is their only reader and writer:
//
//  maps   (vkattn.save_attention; vkattn-viewer --source npy:DIR)
//         attention.npy          f32 [layers?, heads?, rows, cols], missing leading dims are 1
//         row_tokens.txt         one token per row      } each optional; tokens.txt labels
//         col_tokens.txt         one token per column   } whichever axis its length fits
//         tokens.txt
//         (the viewer also takes q.npy [layers?, heads?, rows, d] and k.npy [..., cols, d] in
//         place of attention.npy, and computes the weights)
//
//  dump   (vkattn translate --dump-attention DIR)
//         encoder_self_layerL.npy, decoder_self_layerL.npy, cross_layerL.npy
//                                f32 [heads, rows, cols] for layers L = 0, 1, ... of each kind
//         source_tokens.txt      the encoder's tokens: cross's columns, encoder_self's rows/cols
//         target_tokens.txt      the decoder's tokens: cross's rows, decoder_self's rows/cols
//
// Readers check everything they read and throw InvalidArgument naming the file and what in it is
// wrong (shape, token count, NaN); writers check what they are given the same way and throw
// InvalidArgument naming the file they cannot write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "vkattn/core/tensor.hpp"
#include "vkattn/ops/attention_map.hpp"

namespace vkattn::io {

// File names of the maps layout.
inline constexpr const char* kAttentionFile = "attention.npy";
inline constexpr const char* kQueryFile = "q.npy";
inline constexpr const char* kKeyFile = "k.npy";
inline constexpr const char* kTokensFile = "tokens.txt";
inline constexpr const char* kRowTokensFile = "row_tokens.txt";
inline constexpr const char* kColTokensFile = "col_tokens.txt";
// File names of the dump layout (the .npy files are "<kind>_layer<L>.npy").
inline constexpr const char* kEncoderSelfKind = "encoder_self";
inline constexpr const char* kDecoderSelfKind = "decoder_self";
inline constexpr const char* kCrossKind = "cross";
inline constexpr const char* kSourceTokensFile = "source_tokens.txt";
inline constexpr const char* kTargetTokensFile = "target_tokens.txt";

// ---- token files

struct TokenFile {
  std::vector<std::string> tokens;
  std::string note;  // empty when every line was UTF-8; else names the file and its first bad line
};

// Lines of `path` (a trailing newline optional, "\r\n" read as a line break). A line that is not
// UTF-8 is kept, each offending byte written as a visible \xNN (see escapeInvalidUtf8). Throws
// InvalidArgument(argument) when the file cannot be read.
TokenFile readTokenFile(const std::filesystem::path& path, const std::string& argument);

// One token per line. Throws InvalidArgument(path) for a token holding a line break, or when the
// file cannot be written.
void writeTokenFile(const std::filesystem::path& path, const std::vector<std::string>& tokens);

// "0", "1", ... "n-1": the labels of an axis without a token file.
std::vector<std::string> positionLabels(int64_t n);

// A token file and the name its errors carry (a command-line flag, or the file itself); an empty
// path is no file.
struct TokenFileRef {
  std::string path;
  std::string argument;
};

struct AxisTokenFiles {
  TokenFileRef both;  // tokens.txt: labels each axis whose length it fits
  TokenFileRef rows;
  TokenFileRef cols;
};

struct AxisTokens {
  std::vector<std::string> rows, cols;
  std::string note;  // the notes of token files that are not UTF-8, "; "-separated
};

// The tokens of a rows x cols map: each axis's own file, else `both` where its length fits that
// axis, else positions. Throws InvalidArgument(argument) for an own file of the wrong length, and
// for `both` when it fits neither axis and no own file is given.
AxisTokens readAxisTokens(const AxisTokenFiles& files, int64_t rows, int64_t cols);

// tokens.txt, row_tokens.txt and col_tokens.txt of `dir` where they exist, each argument the file.
AxisTokenFiles folderTokenFiles(const std::filesystem::path& dir);

// ---- the maps layout

// An array [layers?, heads?, rows, last] of 2 to 4 dimensions, none empty (missing leading
// dimensions are 1), its values as f32.
struct LayeredArray {
  Shape shape;
  int64_t layers = 1, heads = 1, rows = 0, last = 0;
  std::vector<float> values;
};

// `expected` names the dimensions in the error for another rank ("[layers?, heads?, rows, cols]").
LayeredArray readLayeredArray(const std::filesystem::path& file, const std::string& expected);

// An attention array (attention.npy, or any such .npy): one map per layer; NaN or infinity is an
// error naming the file.
std::vector<AttentionMap> readAttentionArray(const std::filesystem::path& file);

// q.npy and k.npy of `dir`, with the same layers, heads and head dim.
struct QueryKeyArrays {
  LayeredArray q, k;
};
QueryKeyArrays readQueryKeyArrays(const std::filesystem::path& dir);

// The maps layout as a whole: every layer of attention.npy and each axis's tokens (positions where
// the folder has none).
struct AttentionFolder {
  std::vector<AttentionMap> layers;
  AxisTokens tokens;
};

// True when `dir` holds attention.npy, or q.npy and k.npy.
bool isAttentionFolder(const std::filesystem::path& dir);

AttentionFolder readAttentionFolder(const std::filesystem::path& dir);

// Writes attention.npy (values in `shape`: [rows, cols], [heads, rows, cols] or [layers, heads,
// rows, cols]), row_tokens.txt and col_tokens.txt into `dir`, created when missing.
void writeAttentionFolder(const std::filesystem::path& dir, const Shape& shape, const std::vector<float>& values,
                          const std::vector<std::string>& rowTokens, const std::vector<std::string>& colTokens);

// ---- the dump layout

struct AttentionDump {
  std::vector<AttentionMap> encoderSelf, decoderSelf, cross;  // layers 0.. of each kind; any may be empty
  std::vector<std::string> sourceTokens, targetTokens;        // read: positions where the file is missing
  std::string note;                                           // read: token files that are not UTF-8
};

// "<kind>_layer<layer>.npy" in `dir`.
std::filesystem::path dumpLayerFile(const std::filesystem::path& dir, const std::string& kind, std::size_t layer);

// True when `dir` holds layer 0 of at least one kind.
bool isAttentionDump(const std::filesystem::path& dir);

// Every kind present, layers 0.. in order until the first missing one, each layer the shape of
// layer 0, the token files' lengths matching the maps (encoder: source x source, decoder: target x
// target, cross: target x source).
AttentionDump readAttentionDump(const std::filesystem::path& dir);

// Writes the kinds' layers and both token files into `dir`, created when missing, after the same
// checks as readAttentionDump.
void writeAttentionDump(const std::filesystem::path& dir, const AttentionDump& dump);

}  // namespace vkattn::io
