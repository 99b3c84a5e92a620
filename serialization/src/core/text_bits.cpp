// Out-of-line parts of the text and bitset shapes (detail/core/text_bits.hpp).
#include <refwire/serialization/detail/core/text_bits.hpp>

#include <cstdio>
#include <string>

#include <refwire/serialization/detail/core/encode_failure.hpp>
#include <refwire/serialization/detail/core/path.hpp>

namespace refwire::detail {

std::string bitset_padding_reason(std::size_t n) {
  return "bitset<" + std::to_string(n) + "> has padding bits set (the bits of the last byte past bit " +
         std::to_string(n - 1) + " must be zero)";
}

std::string bitset_text_what(std::size_t n) {
  return "bitset<" + std::to_string(n) + "> (" + std::to_string(n) + " characters '0' or '1')";
}

std::string path_not_generic_reason(std::string_view text, std::string_view generic) {
  return "path " + quote_key(text) + " is not in its generic form " + quote_key(generic);
}

std::string text_excerpt(std::string_view text) {
  std::string shown;
  for (std::size_t i = 0; i < text.size() && i < 32; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      shown += static_cast<char>(c);
    } else {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", c);
      shown += esc;
    }
  }
  if (text.size() > 32) shown += "...";
  return shown;
}

void throw_path_not_utf8(std::string_view text) {
  const std::string shown = text_excerpt(text);
  throw_encode_failure("a std::filesystem::path travels as UTF-8 text; \"" + shown + "\" is not UTF-8");
}

}  // namespace refwire::detail
