#pragma once
// nlohmann::json reports a number too large for a double ("1e400") as out_of_range 406, which
// carries no byte offset (parse_error does). This finds the token's line so that the error
// still names FILE:LINE.
#include <cstddef>
#include <string>
#include <string_view>

namespace floorsim {

inline size_t json_overflow_line(std::string_view text, const std::string& what) {
  const auto a = what.find('\''), b = what.rfind('\'');
  if (a == std::string::npos || b <= a + 1) return 1;
  const auto at = text.find(std::string_view(what).substr(a + 1, b - a - 1));
  size_t line = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

}  // namespace floorsim
