// libFuzzer target: the CLI's flag parser on an arbitrary command line (arguments separated by
// NUL bytes), with the flags of every subcommand, then each accessor the subcommands use. Only
// vkattn::InvalidArgument may come out.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "vkattn/core/error.hpp"

namespace {

const std::set<std::string> kValued = {"--rows",   "--cols",       "--m",
                                       "--n",      "--k",          "--batch",
                                       "--heads",  "--len",        "--queries",
                                       "--dim",    "--json",       "--x",
                                       "--q",      "--v",          "--out",
                                       "--mask",   "--scale",      "--weight",
                                       "--bias",   "--eps",        "--positions",
                                       "--offset", "--theta",      "--rotary-dim",
                                       "--model",  "--max-tokens", "--dump-attention",
                                       "--logits"};
const std::set<std::string> kSwitches = {"--f16",  "--causal",     "--interleaved", "--quick",
                                         "--full", "--validation", "--verbose"};

template <class Read>
void tryRead(Read read) {
  try {
    read();
  } catch (const vkattn::InvalidArgument&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::vector<std::string> args(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0)
      args.emplace_back();
    else
      args.back() += static_cast<char>(data[i]);
  }
  try {
    const vkattn::cli::Arguments a(args, kValued, kSwitches);
    for (const std::string& flag : kValued) {
      tryRead([&] { (void)a.require(flag); });
      tryRead([&] { (void)a.number(flag, 1.0); });
      tryRead([&] { (void)a.integer(flag, 1, 1, std::numeric_limits<int32_t>::max()); });
      tryRead(
          [&] { (void)a.integer(flag, 0, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()); });
    }
    for (const std::string& flag : kSwitches) (void)a.has(flag);
    (void)a.positional();
  } catch (const vkattn::InvalidArgument&) {
  }
  return 0;
}
