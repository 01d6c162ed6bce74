// What tokenizer_crosscheck.py asks of vkattn's tokenizers:
//   tokenizer_probe [--parse-special] GGUF TEXTS.json OUT.json
// TEXTS.json is a JSON list of strings; OUT.json gets, for each, {"ids": encode(text) without
// bos/eos, "decoded": decode(ids)}. --parse-special: control tokens' texts are parsed as those
// tokens, and decoding writes them back. Exit status 0 on success, 1 with a message on any error.
#include <exception>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vkattn/tokenizers/gguf_tokenizer.hpp"

int main(int argc, char** argv) {
  const bool special = argc == 5 && std::string(argv[1]) == "--parse-special";
  if (argc != 4 && !special) {
    std::cerr << "usage: tokenizer_probe [--parse-special] GGUF TEXTS.json OUT.json\n";
    return 1;
  }
  char** args = argv + (special ? 2 : 1);
  try {
    const auto tokenizer = vkattn::loadTokenizer(args[0]);
    std::ifstream in(args[1]);
    const nlohmann::json texts = nlohmann::json::parse(in);
    nlohmann::json results = nlohmann::json::array();
    for (const auto& text : texts) {
      const std::vector<int32_t> ids =
          tokenizer->encode(text.get<std::string>(), {.addSpecial = false, .parseSpecial = special});
      results.push_back({{"ids", ids}, {"decoded", tokenizer->decode(ids, {.renderSpecial = special})}});
    }
    std::ofstream(args[2]) << results.dump();
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "tokenizer_probe: " << e.what() << "\n";
    return 1;
  }
}
