// The path spelling of detail/core/path.hpp, compiled once.
#include <refwire/serialization/detail/core/path.hpp>

#include <cstdio>

namespace refwire::detail {

std::string field_segment(std::string_view name, std::size_t index) {
  if (name.empty()) return ".#" + std::to_string(index);
  std::string s = ".";
  s += name;
  return s;
}

std::string index_segment(std::size_t index) { return "[" + std::to_string(index) + "]"; }

std::string key_segment(std::string_view key) { return "[" + quote_key(key) + "]"; }
std::string key_segment(long long key) { return "[" + std::to_string(key) + "]"; }
std::string key_segment(unsigned long long key) { return "[" + std::to_string(key) + "]"; }

std::string quote_key(std::string_view text, std::size_t max_shown) {
  std::string s = "\"";
  for (std::size_t i = 0; i < text.size() && i < max_shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      s += '\\';
      s += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      s += esc;
    } else {
      s += static_cast<char>(c);
    }
  }
  if (text.size() > max_shown) s += "...";
  s += '"';
  return s;
}

std::string join_path(const std::vector<std::string>& innermost_first) {
  std::string path = "$";
  for (auto it = innermost_first.rbegin(); it != innermost_first.rend(); ++it) path += *it;
  return path;
}

}  // namespace refwire::detail
