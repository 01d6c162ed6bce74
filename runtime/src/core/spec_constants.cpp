#include "vkattn/core/spec_constants.hpp"

#include <algorithm>
#include <string>

#include "vkattn/core/error.hpp"

namespace vkattn {

const char* toString(SpecKind kind) noexcept {
  switch (kind) {
    case SpecKind::Bool:
      return "bool";
    case SpecKind::Uint:
      return "uint";
    case SpecKind::Int:
      return "int";
    case SpecKind::Float:
      return "float";
  }
  return "?";
}

SpecConstants& SpecConstants::put(uint32_t id, uint32_t word, SpecKind kind) {
  auto at = std::lower_bound(m_entries.begin(), m_entries.end(), id,
                             [](const Entry& e, uint32_t wanted) { return e.id < wanted; });
  if (at != m_entries.end() && at->id == id)
    throw Error("specialization constant " + std::to_string(id) + " set twice");
  m_entries.insert(at, Entry{id, word, kind});
  return *this;
}

std::vector<uint32_t> SpecConstants::key() const {
  std::vector<uint32_t> key;
  key.reserve(m_entries.size() * 2);
  for (const Entry& e : m_entries) key.insert(key.end(), {e.id, e.word});
  return key;
}

}  // namespace vkattn
