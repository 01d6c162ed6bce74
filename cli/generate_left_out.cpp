// `vkattn generate` in a build without the GGUF tokenizers (PCRE2 was not found): say so and how
// to get it.
#include <iostream>

#include "commands.hpp"

namespace vkattn::cli {

int generateCommand(const CommonOptions&, const std::vector<std::string>&) {
  std::cerr << "vkattn: this build runs no language models: its GGUF tokenizers need PCRE2, which configure did\n"
               "        not find; install it (Debian: libpcre2-dev) and configure again\n";
  return 2;
}

int perplexityCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  return generateCommand(options, args);  // the same missing piece
}

}  // namespace vkattn::cli
