#pragma once
// refwire::codec<T> handling, once for every format: a format encodes
// codec<T>::to_wire(v) in T's place, and decodes the surrogate then converts
// it with from_wire, whose exceptions become an invalid_value failure.

#include <cstddef>
#include <exception>
#include <utility>

#include <refwire/serialization/detail/core/decode_context.hpp>
#include <refwire/serialization/types.hpp>

namespace refwire::detail {

/// The surrogate type T travels as.
template <class T>
using wire_type_t = typename codec<T>::wire;

/// v = codec<T>::from_wire(w); a std::exception it throws is recorded as
/// invalid_value at offset (where the surrogate began) with its message.
template <class T>
bool from_wire(decode_context& c, std::size_t offset, wire_type_t<T>&& w, T& v) {
  try {
    v = codec<T>::from_wire(std::move(w));
    return true;
  } catch (const std::exception& e) {
    return record_failure(c, errc::invalid_value, offset, e.what());
  }
}

/// Decodes a T through its codec: read_wire(w) decodes the surrogate with
/// the format's own read, then from_wire converts it; a rejected value is
/// reported where the surrogate began (r.offset() before it was read).
template <class T, class R, class ReadWire>
bool read_through_codec(R& r, T& v, ReadWire&& read_wire) {
  const std::size_t at = r.offset();
  wire_type_t<T> w{};
  if (!read_wire(w)) return false;
  return from_wire(r, at, std::move(w), v);
}

}  // namespace refwire::detail
