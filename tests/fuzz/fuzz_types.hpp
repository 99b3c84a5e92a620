#pragma once
// The types the fuzzers decode (defined once, in tests/serialization/common/types.hpp),
// shared with the seed-corpus generators. The first input byte (mod type_count)
// picks one; the rest is the encoding. The seed corpora in tests/fuzz/corpus/
// depend on this list: keep its order, and keep the types' definitions.
#include "../serialization/common/types.hpp"

#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace fuzz {

using point = shapes::bare_point;
using order = shapes::order;
using node = shapes::fuzz_node;
using chain = shapes::fuzz_chain;
using flags = shapes::fuzz_flags;
using color = shapes::fuzz_color;
using yes_no = shapes::yes_no;
using even = shapes::fuzz_even;
using ordered_shapes = shapes::ordered_shapes;
using plain = shapes::fuzz_plain;
using empty = shapes::empty_aggregate;
using unordered = shapes::unordered;
using std_types = shapes::fuzz_std;

using string_map = std::map<std::string, std::vector<std::int16_t>>;
using string_set = std::set<std::string>;
using empties = std::vector<std::vector<empty>>;
using mixed_tuple = std::tuple<std::uint8_t, std::optional<std::string>, std::vector<bool>, std::list<std::int64_t>>;

/// The selector byte of each type (input[0] % type_count).
enum class kind : std::uint8_t {
  point,
  order,
  node,
  chain,
  flags,
  ordered_shapes,
  plain,
  string_map,
  string_set,
  empties,
  mixed_tuple,
  unordered,
  std_types,  // shared_ptr, multimap, multiset, bitset, path, u8string, enum and uuid map keys
  count
};
inline constexpr unsigned type_count = static_cast<unsigned>(kind::count);

/// Limits the harness decodes with: small enough that a short input cannot
/// make one run slow (empty elements cost no input bytes).
inline constexpr refwire::decode_options fuzz_options{
    .max_depth = 64, .max_elements = std::uint64_t{1} << 16, .max_alloc_bytes = std::uint64_t{1} << 24};

}  // namespace fuzz
