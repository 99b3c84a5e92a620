#pragma once
// The one spelling of a value's path, shared by decode errors and encode
// errors of every format: "$", "$.items[3].name", "$.m[\"key\"]", "$.#2" for
// a field of a PFR aggregate (no names). Segments are collected innermost
// first while a failure unwinds, then joined once.

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace refwire::detail {

/// ".name", or ".#index" when the field has no name.
std::string field_segment(std::string_view name, std::size_t index);
/// "[index]".
std::string index_segment(std::size_t index);
/// "[\"key\"]", the key quoted as by quote_key.
std::string key_segment(std::string_view key);
/// "[key]" for an integer map key.
std::string key_segment(long long key);
std::string key_segment(unsigned long long key);

/// text in double quotes, '"' and '\\' escaped with a backslash, control
/// characters and DEL as \u00XX, cut after max_shown bytes with "...".
std::string quote_key(std::string_view text, std::size_t max_shown = 64);

/// Pushes the path segment of a map entry onto a failure being recorded
/// (a decode_context or an encode_failure, through their push_key /
/// push_index): its key when the key is a string or an integer, else its position.
template <class Failure, class K>
void push_map_key(Failure& f, const K& key, std::size_t position) {
  if constexpr (std::is_same_v<K, std::string> || std::is_same_v<K, std::string_view>) {
    push_key(f, std::string_view(key));
  } else if constexpr (std::is_integral_v<K> && !std::is_same_v<K, bool> && std::is_signed_v<K>) {
    push_key(f, static_cast<long long>(key));
  } else if constexpr (std::is_integral_v<K> && !std::is_same_v<K, bool>) {
    push_key(f, static_cast<unsigned long long>(key));
  } else {
    push_index(f, position);
  }
}

/// "$" followed by the segments, which are innermost first.
std::string join_path(const std::vector<std::string>& innermost_first);

}  // namespace refwire::detail
