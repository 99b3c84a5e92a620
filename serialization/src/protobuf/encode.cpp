// Out-of-line parts of the protobuf encoder (detail/protobuf/encode.hpp).
#include <refwire/serialization/detail/protobuf/encode.hpp>

#include <cstdio>
#include <string>

namespace refwire::detail::pb {

void throw_invalid_utf8(std::string_view text) {
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
  throw_encode_failure("protobuf string fields must hold UTF-8; \"" + shown +
                       "\" does not (use std::vector<std::byte> for bytes)");
}

}  // namespace refwire::detail::pb
