#include "arguments.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "vkattn/core/error.hpp"

namespace vkattn::cli {

Arguments::Arguments(const std::vector<std::string>& args, const std::set<std::string>& valued,
                     const std::set<std::string>& switches) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      m_positional.push_back(a);
    } else if (valued.count(a)) {
      if (i + 1 >= args.size()) throw InvalidArgument(a, "needs a value");
      if (!m_values.emplace(a, args[++i]).second) throw InvalidArgument(a, "given twice");
    } else if (switches.count(a)) {
      m_switches.insert(a);
    } else {
      throw InvalidArgument(a, "unknown option");
    }
  }
}

std::optional<std::string> Arguments::get(const std::string& flag) const {
  auto it = m_values.find(flag);
  if (it == m_values.end()) return std::nullopt;
  return it->second;
}

std::string Arguments::require(const std::string& flag) const {
  auto v = get(flag);
  if (!v) throw InvalidArgument(flag, "is required");
  return *v;
}

double Arguments::number(const std::string& flag, double fallback) const {
  auto v = get(flag);
  if (!v) return fallback;
  try {
    std::size_t used = 0;
    double d = std::stod(*v, &used);
    if (used != v->size() || !std::isfinite(d)) throw std::invalid_argument("x");
    return d;
  } catch (const std::exception&) {
    throw InvalidArgument(flag, "expected a number, got '" + *v + "'");
  }
}

int64_t Arguments::integer(const std::string& flag, int64_t fallback, int64_t min, int64_t max) const {
  auto v = get(flag);
  if (!v) return fallback;
  const std::string range = std::to_string(min) + " .. " + std::to_string(max);
  // strtoll, not a cast from number(): a double beyond int64 would make the cast undefined.
  char* end = nullptr;
  errno = 0;
  const long long n =
      v->empty() || std::isspace(static_cast<unsigned char>(v->front())) ? 0 : std::strtoll(v->c_str(), &end, 10);
  if (!end || end != v->c_str() + v->size()) throw InvalidArgument(flag, "expected a whole number, got '" + *v + "'");
  if (errno == ERANGE || n < min || n > max) throw InvalidArgument(flag, "is " + *v + ", expected " + range);
  return n;
}

}  // namespace vkattn::cli
