#pragma once
// refwire/serialization/binary.hpp: the native binary format (the default).
//
//   std::vector<std::byte> b = refwire::serialize(p);        // refwire::binary
//   point q = refwire::deserialize<point>(b);
//
// Little-endian, positional, fixed-width scalars, varint lengths; a
// contiguous run of arithmetic values is one length and one memcpy. The byte
// layout is in docs/binary-format.md.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <refwire/serialization/detail/binary/read.hpp>
#include <refwire/serialization/detail/binary/write.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/options.hpp>
#include <refwire/serialization/reflect.hpp>
#include <refwire/serialization/serialize.hpp>

namespace refwire {

/// The native binary format: a format tag for serialize / deserialize.
struct binary {
  static constexpr std::string_view name = "binary";
  /// The format's id in snapshot headers (and later in RPC frames).
  static constexpr std::uint8_t id = 1;
  /// Positional: fields are identified by their order, so names are not needed.
  static constexpr bool positional = true;

  /// Appends the encoding of v to out (binary reads nothing from options).
  template <serializable T>
  static void encode(const T& v, std::vector<std::byte>& out, const encode_options& /*options*/) {
    detail::bin::encode(v, out);
  }

  /// Decodes a T from in into out. With consumed == nullptr the value must
  /// span the whole input (trailing bytes are an error); otherwise the
  /// number of bytes the value took is stored there.
  template <serializable T>
  static error decode(std::span<const std::byte> in, T& out, const decode_options& options,
                      std::size_t* consumed) {
    detail::bin::reader r(in, options);
    if (!detail::bin::read(r, out)) [[unlikely]] return detail::make_error(r);
    if (consumed != nullptr) {
      *consumed = r.offset();
    } else if (r.cur != r.end) [[unlikely]] {
      detail::fail(r, errc::trailing_bytes,
                        std::to_string(r.left()) + " trailing bytes after the value");
      return detail::make_error(r);
    }
    return {};
  }
};

}  // namespace refwire
