#pragma once
// refwire/serialization/format.hpp: what a format is (the refwire::format
// concept) and which types a format can carry (refwire::can_carry). Includes
// no concrete format: binary, json and protobuf are in their own headers, and
// the list of them all (the registry) is in formats.hpp.
//
//   static_assert(refwire::format<refwire::json>);
//   static_assert(!refwire::can_carry<plain_aggregate, refwire::json>);   // JSON needs names

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include <boost/describe/class.hpp>

#include <refwire/serialization/error.hpp>
#include <refwire/serialization/options.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire {

namespace detail {

/// The type a format's encode / decode signatures are checked with: a
/// described struct with one int field, which every format must be able to carry.
struct format_probe {
  int value = 0;
};
BOOST_DESCRIBE_STRUCT(format_probe, (), (value))

}  // namespace detail

/// A format tag: binary, json, protobuf (or one of your own). A format is an
/// empty struct with a name, a one-byte id (recorded in snapshot headers), whether it identifies fields by position (true) or by name
/// (false), and static encode / decode templates:
///
///   struct my_format {
///     static constexpr std::string_view name = "mine";
///     static constexpr std::uint8_t id = 200;
///     static constexpr bool positional = true;
///     template <refwire::serializable T>       // appends v's bytes to out
///     static void encode(const T& v, std::vector<std::byte>& out, const refwire::encode_options&);
///     template <refwire::serializable T>       // consumed == nullptr: in must hold exactly one value
///     static refwire::error decode(std::span<const std::byte> in, T& out, const refwire::decode_options&,
///                                  std::size_t* consumed);
///   };
///   static_assert(refwire::format<my_format>);
///
/// The signatures are checked with a described struct holding an int
/// (detail::format_probe), so encode / decode must accept at least that. Only
/// the declarations are checked: nothing is instantiated. F must be complete
/// where the concept is checked (at a call of serialize / deserialize).
template <class F>
concept format = std::is_empty_v<F> &&
                 requires(const detail::format_probe& value, detail::format_probe& target,
                          std::vector<std::byte>& bytes, std::span<const std::byte> in,
                          const encode_options& eo, const decode_options& dopt, std::size_t* consumed) {
                   { F::name } -> std::convertible_to<std::string_view>;
                   { F::id } -> std::convertible_to<std::uint8_t>;
                   { F::positional } -> std::convertible_to<bool>;
                   F::encode(value, bytes, eo);
                   { F::decode(in, target, dopt, consumed) } -> std::convertible_to<error>;
                 };

namespace detail {

/// The rule behind can_carry, for any F with a `positional` member.
template <class T, class F>
inline constexpr bool carries = deep_ok<T, !F::positional>;

}  // namespace detail

/// True when format F can encode and decode T: T is serializable, and a named
/// format (F::positional == false, such as JSON) gets field names from it (a
/// plain aggregate walked by Boost.PFR has none). Fields are looked at too,
/// however deeply nested: a described struct with a plain-aggregate field
/// cannot be carried by JSON. The same rule serialize, deserialize and
/// load_snapshot check (and, when it fails, report naming the field).
///
///   struct plain { int a; };                     // PFR only
///   struct outer { plain p; };
///   BOOST_DESCRIBE_STRUCT(outer, (), (p))
///   static_assert(refwire::can_carry<plain, refwire::binary>);
///   static_assert(!refwire::can_carry<plain, refwire::json>);
///   static_assert(!refwire::can_carry<outer, refwire::json>);   // outer.p has no names
///   if constexpr (refwire::can_carry<T, F>) return refwire::serialize<F>(v);
template <class T, format F>
inline constexpr bool can_carry = detail::carries<T, F>;

}  // namespace refwire
