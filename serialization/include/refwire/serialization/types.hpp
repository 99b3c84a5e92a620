#pragma once
// refwire/serialization/types.hpp: vocabulary types every format knows.
//
//   auto id = refwire::uuid::parse("123e4567-e89b-12d3-a456-426614174000");
//   std::string s = id->to_string();
//   refwire::timestamp t = std::chrono::system_clock::now();   // int64 ns on the wire

#include <array>
#include <chrono>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace refwire {

/// A 128-bit UUID: 16 bytes in the order of its canonical text form.
///
///   refwire::uuid id = refwire::uuid::from_string("123e4567-e89b-12d3-a456-426614174000");
///   assert(id.to_string() == "123e4567-e89b-12d3-a456-426614174000");
struct uuid {
  std::array<std::byte, 16> bytes{};

  /// Parses the canonical 36-character form (8-4-4-4-12 hex digits, either case).
  [[nodiscard]] static std::optional<uuid> parse(std::string_view text) noexcept;
  /// Like parse, but throws std::invalid_argument naming the text.
  [[nodiscard]] static uuid from_string(std::string_view text);
  /// The canonical lower-case form, 36 characters.
  [[nodiscard]] std::string to_string() const;
  /// Writes the canonical form into exactly 36 characters at out.
  void to_chars(char* out) const noexcept;
  [[nodiscard]] bool is_nil() const noexcept { return *this == uuid{}; }

  friend bool operator==(const uuid&, const uuid&) = default;
  friend auto operator<=>(const uuid&, const uuid&) = default;
};

/// A point in time: std::chrono::system_clock::time_point (nanoseconds since
/// the Unix epoch on the wire).
using timestamp = std::chrono::system_clock::time_point;

/// Maps a type you do not own to a serializable surrogate ("wire" type):
///
///   template <> struct refwire::codec<std::filesystem::path> {
///     using wire = std::string;
///     static std::string to_wire(const std::filesystem::path& p) { return p.string(); }
///     static std::filesystem::path from_wire(std::string&& s) { return s; }
///   };
///
/// from_wire may throw to reject a value; the decode then fails with
/// errc::invalid_value and the exception's message.
template <class T>
struct codec;

}  // namespace refwire

template <>
struct std::hash<refwire::uuid> {
  std::size_t operator()(const refwire::uuid& id) const noexcept;
};
