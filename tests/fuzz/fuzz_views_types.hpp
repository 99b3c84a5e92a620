#pragma once
// The types fuzz_views decodes, shared with its seed-corpus generator
// (make_corpus_views.cpp): each view struct has an owning twin with the same
// fields, std::string for std::string_view and std::vector<std::byte> for
// std::span<const std::byte>. The first input byte picks the format
// (input[0] % 3: binary, protobuf, json); the rest is the encoding.
#include <refwire/serialization.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fuzz_views {

struct part_own {
  std::string tag;
  std::vector<std::byte> data;
};
BOOST_DESCRIBE_STRUCT(part_own, (), (tag, data))

struct part_view {
  std::string_view tag;
  std::span<const std::byte> data;
};
BOOST_DESCRIBE_STRUCT(part_view, (), (tag, data))

/// binary and protobuf: strings and bytes.
struct record_own {
  std::int32_t id = 0;
  std::string name;
  std::vector<std::string> words;
  std::optional<std::string> note;
  std::map<std::string, std::int32_t> counts;
  std::vector<part_own> parts;
  std::vector<std::byte> blob;
};
BOOST_DESCRIBE_STRUCT(record_own, (), (id, name, words, note, counts, parts, blob))

struct record_view {
  std::int32_t id = 0;
  std::string_view name;
  std::vector<std::string_view> words;
  std::optional<std::string_view> note;
  std::map<std::string_view, std::int32_t> counts;
  std::vector<part_view> parts;
  std::span<const std::byte> blob;
};
BOOST_DESCRIBE_STRUCT(record_view, (), (id, name, words, note, counts, parts, blob))

/// JSON: strings only (bytes are base64 there, never a view).
struct text_own {
  std::int32_t id = 0;
  std::string name;
  std::vector<std::string> words;
  std::optional<std::string> note;
  std::map<std::string, std::int32_t> counts;
};
BOOST_DESCRIBE_STRUCT(text_own, (), (id, name, words, note, counts))

struct text_view {
  std::int32_t id = 0;
  std::string_view name;
  std::vector<std::string_view> words;
  std::optional<std::string_view> note;
  std::map<std::string_view, std::int32_t> counts;
};
BOOST_DESCRIBE_STRUCT(text_view, (), (id, name, words, note, counts))

inline constexpr refwire::decode_options options{.max_depth = 32, .max_elements = 1 << 12,
                                                 .max_alloc_bytes = 1 << 20};

}  // namespace fuzz_views
