// Writing JSON values by hand: the reports of the command-line tool and the viewer's exports.
#pragma once

#include <string>
#include <string_view>

namespace vkattn {

// `text` as a JSON string literal: quotes, backslashes and control characters escaped.
std::string jsonQuoted(std::string_view text);
// A JSON number with 9 significant digits, or null for NaN and infinities (JSON cannot spell them).
std::string jsonNumber(double value);

}  // namespace vkattn
