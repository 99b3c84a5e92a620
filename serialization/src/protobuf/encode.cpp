// Out-of-line parts of the protobuf encoder (detail/protobuf/encode.hpp).
#include <refwire/serialization/detail/protobuf/encode.hpp>

#include <refwire/serialization/detail/core/text_bits.hpp>

#include <string>

namespace refwire::detail::pb {

void throw_invalid_utf8(std::string_view text) {
  const std::string shown = text_excerpt(text);
  throw_encode_failure("protobuf string fields must hold UTF-8; \"" + shown +
                       "\" does not (use std::vector<std::byte> for bytes)");
}

}  // namespace refwire::detail::pb
