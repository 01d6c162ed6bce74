// vkattn: list Vulkan devices and run vkattn's kernels on them.
#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "commands.hpp"

namespace {

void usage(std::ostream& out) {
  out << "usage: vkattn <command> [--device INDEX|NAME] [options]\n"
         "\n"
         "commands:\n"
         "  devices   every Vulkan device with the features and limits that decide kernel variants\n"
         "  devices --pipelines [--json FILE] [--isa DIR]  the driver's compiler statistics (registers,\n"
         "            spills, shared memory, occupancy, matrix instructions) of every GPU kernel Auto\n"
         "            can choose, and with --isa each one's machine code; compiles only, runs nothing\n"
         "  demo      run each kernel on a sample on the chosen device; print accuracy against a\n"
         "            double-precision CPU reference and speed against its baseline (a copy, or\n"
         "            the naive kernel), then translate the documents' sentence\n"
         "  conformance [--quick|--full] [--filter PATTERN] [--json FILE] [--validation] [--verbose]\n"
         "            the shader conformance suite on this device: a table of cases, passes, skips\n"
         "            and worst error vs tolerance per kernel; exit status 1 on any failure\n"
         "            (--list names the cases the other flags select and runs nothing; --verbose\n"
         "            prints each case's output and why each skipped case was skipped)\n"
         "  bench KERNEL  softmax|layer_norm|rms_norm|rope|attention|linear, verified then timed beside\n"
         "            its baseline: [--rows R --cols C] [--batch B --heads H --kv-heads HKV\n"
         "            --len L --queries Q --dim D --page-size P (a paged K/V cache, against the dense one)\n"
         "            --kv-dtype bf16|q8_0|q4_0 (K/V stored so, against the dense f32/f16 K/V)\n"
         "            --kernel rows|tiled|coopmat|coopmat2|coopmat2-wg|coopmat-emulated|decode|auto (the attention\n"
         "            kernel) --against VARIANT (timed as the baseline instead of the naive path)\n"
         "            --key-splits N (splits of the keys for kernels that split them; 0: vkattn's choice;\n"
         "            not for the --against baseline)]\n"
         "            [--m M --n N --k K]\n"
         "            [--causal] [--f16] [--json FILE] [--repeats N (timed runs; the median is\n"
         "            reported)] [--baseline-repeats N (0 skips the baseline)]\n"
         "  bench generate  a random-weight language model (default: TinyLlama-1.1B's shape, F16),\n"
         "            its logits checked, then prompt and decode tokens/s: [--arch llama|qwen2|qwen3|\n"
         "            gemma2|gemma3 (default llama) --layers N --dim D\n"
         "            --heads H --kv-heads HKV --head-dim HD --ffn F --vocab V --weights F16|Q4_K|...\n"
         "            --prompt-tokens P --new-tokens N --temperature T --top-k K --top-p P --seed S\n"
         "            (drawn on the device; default greedy, seed 1) --model-out FILE (the model file\n"
         "            kept there, for a peer to run)]\n"
         "  run OP    one kernel on .npy files: OP is softmax, layer_norm, rms_norm, rope or attention;\n"
         "            --x IN.npy (attention: --q Q.npy --k K.npy --v V.npy [--causal]) --out OUT.npy\n"
         "            [--f16] [--mask M.npy --scale S] [--weight W.npy]\n"
         "            [--bias B.npy] [--eps E] [--positions P.npy | --offset N] [--theta T]\n"
         "            [--interleaved] [--rotary-dim R]\n"
         "  generate MODEL.gguf \"PROMPT\"  a GGUF language model (llama, qwen2, qwen3, gemma2, gemma3): streams\n"
         "            text, reports tokens/s: [--max-tokens N] [--temperature T] [--top-k K]\n"
         "            [--top-p P] [--seed S (default: a fresh one, printed when sampling)]\n"
         "            [--context N (key/value positions; default the file's, capped at 4096; any N\n"
         "            the device holds runs, past the file's with a warning)] [--kv-dtype bf16|q8_0|q4_0]\n"
         "            [--logits FILE.npy] [--ignore-eos] [--warmup] [--verbose]\n"
         "  perplexity MODEL.gguf TEXT.txt [--context N]  the model's perplexity on the text, in\n"
         "            chunks of N tokens scored as llama.cpp's llama-perplexity does\n"
         "  translate \"ENGLISH SENTENCE\"  the project's tiny English->French model; prints the\n"
         "            translation: [--verbose] [--dump-attention DIR] [--logits FILE.npy]\n"
         "            [--model DIR] [--max-tokens N]\n"
         "  warmup [--model DIR]  compile, ahead of first use, the kernels this device will run\n"
         "            for translation and the viewer into the pipeline cache (progress on stderr)\n"
         "\n"
         "environment: VKATTN_DEVICE (device), VKATTN_PROFILE=cpu|gpu (kernel family),\n"
         "             VKATTN_VALIDATION=1 (Khronos validation layer),\n"
         "             VKATTN_MODEL_DIR (translation model folder),\n"
         "             VKATTN_DISPATCH_TRACE=1 (GPU time per kernel module, printed at exit),\n"
         "             VKATTN_PIPELINE_TRACE=FILE (a line per pipeline built, appended to FILE)\n";
}

}  // namespace

namespace vkattn::cli {

// Exit status of one command; 2 for an unknown command or argument.
int dispatchCommand(const std::string& command, const CommonOptions& options, const std::vector<std::string>& rest) {
  if (std::find(rest.begin(), rest.end(), "--help") != rest.end() ||
      std::find(rest.begin(), rest.end(), "-h") != rest.end()) {
    usage(std::cout);  // every command's options, the one asked about among them
    return 0;
  }
  if (command == "translate") return translateCommand(options, rest);
  if (command == "generate") return generateCommand(options, rest);
  if (command == "perplexity") return perplexityCommand(options, rest);
  if (command == "warmup") return warmupCommand(options, rest);
  if (command == "run") return runCommand(options, rest);
  if (command == "bench") return benchCommand(options, rest);
  if (command == "conformance") return conformanceCommand(options, rest);
  if (command == "devices" && !rest.empty() && rest.front() == "--pipelines")
    return pipelinesCommand(options, std::vector<std::string>(rest.begin() + 1, rest.end()));
  if (!rest.empty()) {
    std::cerr << "vkattn: unknown argument '" << rest.front() << "'\n";
    usage(std::cerr);
    return 2;
  }
  if (command == "devices") return devicesCommand(options);
  if (command == "demo") return demoCommand(options);
  std::cerr << "vkattn: unknown command '" << command << "'\n";
  usage(std::cerr);
  return 2;
}

}  // namespace vkattn::cli

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  vkattn::cli::CommonOptions options;
  std::vector<std::string> rest;
  vkattn::cli::splitArguments(argc, argv, 2, options, rest);
  return vkattn::cli::exitStatusOf([&] { return vkattn::cli::dispatchCommand(command, options, rest); });
}
