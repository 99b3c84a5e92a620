#pragma once
// refwire/serialization/protobuf.hpp: the protobuf (proto3) wire format, from
// reflected structs, without protoc or generated code.
//
//   struct point { std::int32_t x; double y; std::string name; };
//   BOOST_DESCRIBE_STRUCT(point, (), (x, y, name))
//   REFWIRE_NAME(point, "Point")                      // the message name in .proto output
//
//   std::vector<std::byte> q = refwire::serialize<refwire::protobuf>(p);
//   point p2 = refwire::deserialize<point, refwire::protobuf>(q);
//   std::string proto = refwire::proto_schema<point>("my.pkg");
//   // syntax = "proto3"; package my.pkg; message Point { int32 x = 1; double y = 2; string name = 3; }
//
// Field number = position + 1 (base fields first, skipped fields keep their
// number) unless REFWIRE_ATTRIBUTES gives `.number`; `.encoding` picks
// sint (zigzag) or fixed/sfixed for integers. The whole mapping, proto3
// default semantics and unknown-field handling: docs/protobuf-format.md.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <refwire/serialization/detail/protobuf/decode.hpp>
#include <refwire/serialization/detail/protobuf/encode.hpp>
#include <refwire/serialization/detail/protobuf/schema.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/options.hpp>
#include <refwire/serialization/reflect.hpp>
#include <refwire/serialization/serialize.hpp>

namespace refwire {

/// The protobuf format (proto3 wire format): a format tag for serialize / deserialize.
///
///   auto bytes = refwire::serialize<refwire::protobuf>(p);
///   refwire::error e = refwire::deserialize<refwire::protobuf>(bytes, p, {.reject_unknown_fields = true});
struct protobuf {
  static constexpr std::string_view name = "protobuf";
  /// The format's id in snapshot headers (and later in RPC frames).
  static constexpr std::uint8_t id = 3;
  /// Positional: field numbers come from positions, so plain aggregates work too.
  static constexpr bool positional = true;

  /// Appends the protobuf encoding of v to out. A record, tuple or variant is
  /// the message itself; any other T is field 1 of a wrapper message (the
  /// shape proto_schema<T> emits). Throws encode_error for a std::string that
  /// is not UTF-8 and for a time value outside int64 nanoseconds; its what()
  /// names the value's path ("$.legs[2].name: protobuf string fields must hold UTF-8; ...").
  template <serializable T>
  static void encode(const T& v, std::vector<std::byte>& out, const encode_options& /*options*/) {
    detail::pb::encode_into(out, v);
  }

  /// Decodes a T from in into out (proto3 semantics: out is reset to zero
  /// values first, so a field the input lacks is zero / empty, not the C++
  /// default member initializer). A protobuf message is not self-delimiting:
  /// the whole input is the message, and *consumed (when given) is set to
  /// in.size() on success.
  template <serializable T>
  static error decode(std::span<const std::byte> in, T& out, const decode_options& options,
                      std::size_t* consumed) {
    detail::pb::reader r(in, options);
    if (!detail::pb::decode(r, out)) [[unlikely]] return detail::make_error(r);
    if (consumed != nullptr) *consumed = in.size();
    return {};
  }
};

/// The proto3 schema (.proto text) of T and of every message and enum type it
/// uses, in package `package` (none when empty). Bytes written by
/// serialize<protobuf>(T) parse as the schema's first message. Names come from
/// REFWIRE_NAME, else are derived from refwire's canonical spelling of the
/// type ("Message_<16 hex digits>"); timestamps and durations import
/// google/protobuf/timestamp.proto and duration.proto.
///
///   std::string text = refwire::proto_schema<point>("my.pkg");
///   std::ofstream("point.proto") << text;   // protoc --cpp_out=. point.proto
template <class T>
[[nodiscard]] std::string proto_schema(std::string_view package = {}) {
  if constexpr (detail::check_serializable<T, protobuf>()) {
    return detail::pb::schema<T>(package);
  } else {
    return {};
  }
}

}  // namespace refwire
