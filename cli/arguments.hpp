// A small flag parser for the subcommands: --name value pairs and --switches, each named flag
// used at most once; unknown flags are errors that name them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace vkattn::cli {

class Arguments {
 public:
  // `valued` flags take a value, `switches` do not; anything else is rejected.
  Arguments(const std::vector<std::string>& args, const std::set<std::string>& valued,
            const std::set<std::string>& switches);

  std::optional<std::string> get(const std::string& flag) const;
  std::string require(const std::string& flag) const;
  double number(const std::string& flag, double fallback) const;
  // A whole number in [min, max] written in decimal (no fraction, no exponent), else fallback.
  int64_t integer(const std::string& flag, int64_t fallback, int64_t min, int64_t max) const;
  bool has(const std::string& flag) const { return m_switches.count(flag) > 0; }
  const std::vector<std::string>& positional() const { return m_positional; }

 private:
  std::map<std::string, std::string> m_values;
  std::set<std::string> m_switches;
  std::vector<std::string> m_positional;
};

}  // namespace vkattn::cli
