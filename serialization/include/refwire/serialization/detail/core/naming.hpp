#pragma once
// Naming policies and variant representations (refwire::naming,
// refwire::variant_form), shared by reflect.hpp (type attributes) and
// options.hpp (per-call options), and the compile-time name conversion.
//
//   static_assert(refwire::detail::converted_name<32>("HTTPServer2Id", refwire::naming::snake_case).view() ==
//                 "http_server2_id");

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace refwire {

/// How a field's wire name (JSON key) is derived from its C++ member name,
/// for a whole type (type_attr::naming) or a call (encode_options::naming,
/// decode_options::naming). A per-field `rename` always wins.
///
/// Words: a run of '_' separates words; an uppercase ASCII letter starts a
/// word after a lowercase letter or a digit (`userId` = user|Id, `v2Id` =
/// v2|Id), and the last uppercase letter of a run starts a word when a
/// lowercase letter follows it (`HTTPServer` = HTTP|Server); digits stay in the
/// word before them (`Server2` is one word). Leading and trailing underscores
/// are kept as they are (`_id`, `value_`). Bytes other than ASCII letters,
/// digits and '_' have no case and never split a word.
///
///   REFWIRE_TYPE_ATTRIBUTES(user, {.naming = refwire::naming::camel_case})  // user_id -> "userId"
///   refwire::to_json(v, {.naming = refwire::naming::kebab_case});           // HTTPServer2Id -> "http-server2-id"
enum class naming : std::uint8_t {
  as_declared,  ///< the member name as written (the default)
  snake_case,   ///< http_server2_id
  camel_case,   ///< httpServer2Id
  pascal_case,  ///< HttpServer2Id
  kebab_case,   ///< http-server2-id
};

/// How JSON writes and reads a std::variant (encode_options::variants,
/// decode_options::variants, type_attr::variants).
///
///   by_index:          {"1": {"r": 2}}       (the default)
///   by_name:           {"circle": {"r": 2}}
///   internally_tagged: {"type": "circle", "r": 2}
enum class variant_form : std::uint8_t {
  by_index,           ///< an object with one key, the alternative's index
  by_name,            ///< an object with one key, the alternative's name
  internally_tagged,  ///< the alternative's own object plus a tag key naming it (struct alternatives only)
};

namespace detail {

/// Number of naming enumerators (tables indexed by naming).
inline constexpr std::size_t naming_count = 5;

/// "naming::camel_case", for messages.
constexpr std::string_view naming_label(naming p) noexcept {
  switch (p) {
    case naming::snake_case: return "naming::snake_case";
    case naming::camel_case: return "naming::camel_case";
    case naming::pascal_case: return "naming::pascal_case";
    case naming::kebab_case: return "naming::kebab_case";
    default: return "naming::as_declared";
  }
}

constexpr bool ascii_upper(char c) noexcept { return c >= 'A' && c <= 'Z'; }
constexpr bool ascii_lower(char c) noexcept { return c >= 'a' && c <= 'z'; }
constexpr bool ascii_digit(char c) noexcept { return c >= '0' && c <= '9'; }
constexpr char to_lower(char c) noexcept { return ascii_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }
constexpr char to_upper(char c) noexcept { return ascii_lower(c) ? static_cast<char>(c - 'a' + 'A') : c; }

/// A converted name in a fixed buffer (Cap >= 2 * input size).
template <std::size_t Cap>
struct name_buffer {
  std::array<char, Cap> chars{};
  std::size_t size = 0;
  [[nodiscard]] constexpr std::string_view view() const noexcept { return {chars.data(), size}; }
};

/// name under policy p (the word rules of refwire::naming).
template <std::size_t Cap>
constexpr name_buffer<Cap> converted_name(std::string_view name, naming p) noexcept {
  name_buffer<Cap> out;
  auto put = [&](char c) {
    if (out.size < Cap) out.chars[out.size++] = c;
  };
  if (p == naming::as_declared) {
    for (char c : name) put(c);
    return out;
  }
  std::size_t lead = 0;
  while (lead < name.size() && name[lead] == '_') ++lead;
  if (lead == name.size()) {
    for (char c : name) put(c);
    return out;
  }
  std::size_t end = name.size();
  while (end > lead && name[end - 1] == '_') --end;
  for (std::size_t i = 0; i < lead; ++i) put('_');
  std::size_t word = 0;       // words emitted
  bool in_word = false;       // inside a word
  std::size_t letter = 0;     // position inside the current word
  for (std::size_t i = lead; i < end; ++i) {
    const char c = name[i];
    if (c == '_') {
      in_word = false;
      continue;
    }
    bool starts = !in_word;
    if (in_word && ascii_upper(c)) {
      const char prev = name[i - 1];
      const bool next_lower = i + 1 < end && ascii_lower(name[i + 1]);
      starts = ascii_lower(prev) || ascii_digit(prev) || (ascii_upper(prev) && next_lower);
    }
    if (starts) {
      if (word > 0) {
        if (p == naming::snake_case) put('_');
        if (p == naming::kebab_case) put('-');
      }
      ++word;
      in_word = true;
      letter = 0;
    }
    const bool capital = letter == 0 && (p == naming::pascal_case || (p == naming::camel_case && word > 1));
    put(capital ? to_upper(c) : to_lower(c));
    ++letter;
  }
  for (std::size_t i = end; i < name.size(); ++i) put('_');
  return out;
}

/// Room for any converted form of a name of n bytes.
constexpr std::size_t converted_capacity(std::size_t n) noexcept { return 2 * n + 1; }

}  // namespace detail
}  // namespace refwire
