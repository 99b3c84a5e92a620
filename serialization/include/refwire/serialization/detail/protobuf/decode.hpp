#pragma once
// The protobuf format's decoder: proto3's zero values (reset), then the
// fields of a message, first in declaration order against their
// compile-time tags, then through the general tag loop (for_each_tag) that
// dispatches on the field number. Every length is checked against the bytes
// left (of the enclosing message) before anything is allocated. Mapping:
// docs/protobuf-format.md.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include <refwire/serialization/detail/core/codec.hpp>
#include <refwire/serialization/detail/core/decode_context.hpp>
#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/detail/core/text_bits.hpp>
#include <refwire/serialization/detail/protobuf/classify.hpp>
#include <refwire/serialization/detail/protobuf/packed.hpp>
#include <refwire/serialization/detail/protobuf/reader.hpp>
#include <refwire/serialization/detail/wire/config.hpp>
#include <refwire/serialization/detail/wire/time.hpp>
#include <refwire/serialization/detail/wire/utf8.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire::detail::pb {

template <class T>
inline void reset(T& v);

template <class Tuple, std::size_t... I>
inline void reset_tuple(Tuple& t, std::index_sequence<I...>) {
  (reset(std::get<I>(t)), ...);
}

/// Proto3's zero value: 0, false, empty, absent, alternative 0 (itself zero);
/// not the C++ default member initializers. Skipped fields are left alone.
template <class T>
inline void reset(T& v) {
  constexpr shape s = shape_of<T>();
  if constexpr (is_input_view<T>::value) {  // deserialize_view: an empty view
    v = T{};
  } else if constexpr (s == shape::codec || s == shape::boolean || s == shape::integer || s == shape::floating ||
                s == shape::enumeration || s == shape::uuid || s == shape::timestamp || s == shape::duration) {
    v = T{};
  } else if constexpr (s == shape::string || s == shape::blob || s == shape::sequence || s == shape::set ||
                       s == shape::map) {
    v.clear();
  } else if constexpr (s == shape::optional || s == shape::pointer || s == shape::bitset) {
    v.reset();
  } else if constexpr (s == shape::text) {
    v.clear();
  } else if constexpr (s == shape::fixed_array) {
    for (auto& e : v) reset(e);
  } else if constexpr (s == shape::variant) {
    if (v.index() != 0) v.template emplace<0>();
    reset(*std::get_if<0>(&v));
  } else if constexpr (s == shape::tuple) {
    reset_tuple(v, std::make_index_sequence<std::tuple_size_v<T>>{});
  } else {
    static_assert(s == shape::record);
    for_each_field(v, [](auto, auto& member) { reset(member); });
  }
}

template <class T> bool read_body(reader& r, T& v);
template <int_encoding E, class T>
REFWIRE_ALWAYS_INLINE bool read_field(reader& r, std::uint32_t wt, T& v, std::uint64_t field, const std::byte* at,
                                      std::uint32_t& count);

/// A singular value's payload, its wire type already checked; messages merge into v.
template <int_encoding E, class T>
REFWIRE_ALWAYS_INLINE bool read_value(reader& r, T& v) {
  constexpr cat c = category<T>();
  if constexpr (c == cat::scalar) {
    return read_scalar<T, E>(r, v);
  } else if constexpr (is_input_view<T>::value) {
    // deserialize_view: the bytes stay in the input, bounds-checked and (a
    // string) UTF-8 validated as a copy is; nothing is allocated or charged.
    const std::byte* at = r.cur;
    std::uint64_t n;
    if (!read_length(r, n, c == cat::string ? "string" : "bytes")) [[unlikely]] return false;
    if constexpr (c == cat::string) {
      const auto* text = reinterpret_cast<const char*>(r.cur);
      if (!wire::all_ascii(text, static_cast<std::size_t>(n))) [[unlikely]] {
        if (!wire::utf8_valid_slow(text, static_cast<std::size_t>(n))) return fail_utf8(r, at);
      }
      v = T(text, static_cast<std::size_t>(n));
    } else {
      v = T(r.cur, static_cast<std::size_t>(n));
    }
    r.cur += n;
    return true;
  } else if constexpr (c == cat::string || c == cat::blob) {
    const std::byte* at = r.cur;
    std::uint64_t n;
    if (!read_length(r, n, c == cat::string ? "string" : "bytes")) [[unlikely]] return false;
    if (!charge(r, n)) [[unlikely]] return false;
    if constexpr (c == cat::string) {
      // All ASCII is found with a few (possibly overlapping) loads, without a
      // byte loop; anything else is validated whole.
      const auto* text = reinterpret_cast<const char*>(r.cur);
      if (!wire::all_ascii(text, static_cast<std::size_t>(n))) [[unlikely]] {
        if (!wire::utf8_valid_slow(text, static_cast<std::size_t>(n))) return fail_utf8(r, at);
      }
      if (v.empty()) {
        // Constructed in place: one copy (a temporary moved in copies a
        // short string twice; assign goes through the general replace).
        T* const s = std::addressof(v);
        s->~T();
        try {
          ::new (static_cast<void*>(s)) T(text, static_cast<std::size_t>(n));
        } catch (...) {
          ::new (static_cast<void*>(s)) T();
          throw;
        }
      } else {
        v.assign(text, static_cast<std::size_t>(n));
      }
    } else {
      v.assign(r.cur, r.cur + n);
    }
    r.cur += n;
    return true;
  } else if constexpr (c == cat::text) {
    std::string text;
    if (!read_value<E>(r, text)) [[unlikely]] return false;  // UTF-8 checked as for a std::string
    assign_text(v, text);
    return true;
  } else if constexpr (c == cat::bits) {
    constexpr std::size_t bytes = bitset_bytes<bitset_size<T>>;
    const std::byte* at = r.cur;
    std::uint64_t n;
    if (!read_length(r, n, "bitset")) [[unlikely]] return false;
    if (n == 0) {
      v.reset();
      return true;
    }
    if (n != bytes) [[unlikely]] {
      return fail_at(r, at, errc::invalid_value,
                     "a bitset<" + std::to_string(bitset_size<T>) + "> needs " + std::to_string(bytes) +
                         " bytes (or none), got " + std::to_string(n));
    }
    if (!bitset_from_bytes(r.cur, v)) [[unlikely]] {
      return fail_at(r, r.cur + (bytes - 1), errc::invalid_value, bitset_padding_reason(bitset_size<T>));
    }
    r.cur += bytes;
    return true;
  } else if constexpr (c == cat::uuid) {
    const std::byte* at = r.cur;
    std::uint64_t n;
    if (!read_length(r, n, "uuid")) [[unlikely]] return false;
    if (n == 0) {
      v = uuid{};
      return true;
    }
    if (n != 16) [[unlikely]]
      return fail_at(r, at, errc::invalid_value, "a uuid needs 16 bytes (or none), got " + std::to_string(n));
    std::memcpy(v.bytes.data(), r.cur, 16);
    r.cur += 16;
    return true;
  } else {
    std::uint64_t n;
    if (!read_length(r, n, "message")) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope depth(r);
    sub_message sub(r, static_cast<std::size_t>(n));
    return read_body(r, v);
  }
}

/// One occurrence of a value that is always written (repeated element, map
/// key / value, oneof alternative, optional content): checks the wire type;
/// a non-singular value is its wrapper message.
template <int_encoding E, class T>
REFWIRE_ALWAYS_INLINE bool read_elem(reader& r, std::uint32_t wt, T& v, std::uint64_t field, const std::byte* at) {
  if constexpr (has_codec<T>) {
    wire_type_t<T> tmp{};
    reset(tmp);
    if (!read_elem<E>(r, wt, tmp, field, at)) [[unlikely]] return false;
    return from_wire(r, offset_of(r, at), std::move(tmp), v);
  } else if constexpr (singular<T>()) {
    constexpr wire_type expected = value_wire<T, E>();
    if (wt != expected) [[unlikely]] return fail_wire(r, at, field, wt, expected);
    return read_value<E>(r, v);
  } else {
    if (wt != w_len) [[unlikely]] return fail_wire(r, at, field, wt, w_len);
    std::uint64_t n;
    if (!read_length(r, n, "message")) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope depth(r);
    sub_message sub(r, static_cast<std::size_t>(n));
    std::uint32_t count = 0;
    return for_each_tag(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* tat) {
      if (f != 1) return 0;
      return read_field<E>(r, t, v, f, tat, count) ? 1 : -1;
    });
  }
}

/// Field 1 of a map entry, its key: a uuid from its canonical 36-character
/// string (see put_key), anything else as read_elem reads it.
template <int_encoding E, class K>
bool read_key(reader& r, std::uint32_t wt, K& key, std::uint64_t field, const std::byte* at) {
  if constexpr (is_uuid_v<K>) {
    std::string text;
    if (!read_elem<E>(r, wt, text, field, at)) [[unlikely]] return false;
    const std::optional<uuid> id = uuid::parse(text);
    if (!id) [[unlikely]] return fail_uuid_key(r, at, text);
    key = *id;
    return true;
  } else {
    return read_elem<E>(r, wt, key, field, at);
  }
}

/// One occurrence of field `field` (wire type wt, tag at `at`) for the value v
/// in field context: scalars and strings replace, messages merge, repeated
/// fields append, map entries insert or replace. `count` is the number of
/// elements an array already holds.
template <int_encoding E, class T>
REFWIRE_ALWAYS_INLINE bool read_field(reader& r, std::uint32_t wt, T& v, std::uint64_t field, const std::byte* at,
                                      std::uint32_t& count) {
  constexpr cat c = category<T>();
  constexpr shape s = shape_of<T>();
  if constexpr (c == cat::codec || singular<T>()) {
    return read_elem<E>(r, wt, v, field, at);
  } else if constexpr (c == cat::optional) {
    if constexpr (s == shape::optional) {
      if (!v) {
        v.emplace();
        reset(*v);
      }
    } else {
      using P = typename T::element_type;
      if (!v) {  // (a shared_ptr too: reset left it null, so a decode never writes into a shared pointee)
        if (!charge(r, sizeof(P))) [[unlikely]] return false;
        if constexpr (is_shared_ptr<T>::value) v = std::make_shared<P>();
        else v = std::make_unique<P>();
        reset(*v);
      }
    }
    return read_elem<E>(r, wt, *v, field, at);
  } else if constexpr (c == cat::repeated) {
    using El = repeated_elem_t<T>;
    if constexpr (packable<El>()) {
      if (wt == w_len) return read_packed<E>(r, v, at, count);
    }
    if constexpr (singular<El>()) {
      if (wt != value_wire<El, E>()) [[unlikely]] return fail_wire(r, at, field, wt, value_wire<El, E>());
    } else {
      if (wt != w_len) [[unlikely]] return fail_wire(r, at, field, wt, w_len);
    }
    if (r.elements_left == 0) [[unlikely]] return fail_elements(r, 1);
    --r.elements_left;
    if constexpr (s == shape::fixed_array) {
      if (count >= fixed_extent<T>) [[unlikely]] return fail_array(r, at, fixed_extent<T>);
      if (!read_elem<E>(r, wt, v[count], field, at)) [[unlikely]] {
        push_index(r, count);
        return false;
      }
      ++count;
      return true;
    } else {
      if (!charge(r, sizeof(El))) [[unlikely]] return false;
      if constexpr (s == shape::set && is_multi_v<T>) {  // a multiset: duplicates kept
        El e{};
        reset(e);
        if (!read_elem<E>(r, wt, e, field, at)) [[unlikely]] return false;
        v.insert(std::move(e));
        return true;
      } else if constexpr (s == shape::set) {
        El e{};
        reset(e);
        if (!read_elem<E>(r, wt, e, field, at)) [[unlikely]] return false;
        if (!v.insert(std::move(e)).second) [[unlikely]]
          return fail_at(r, at, errc::duplicate_key, "duplicate set element");
        return true;
      } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
        bool b = false;
        if (!read_elem<E>(r, wt, b, field, at)) [[unlikely]] return false;
        v.push_back(b);
        return true;
      } else {
        if constexpr (is_vector<T>::value) {
          if (v.empty() && wt == w_len) {
            // Reserve for the run of this field's elements that follows (one
            // scan of their lengths), within half the allocation budget.
            const std::size_t run = count_run(r.cur, r.end, at, static_cast<std::size_t>(r.cur - at));
            const std::uint64_t cap = std::min<std::uint64_t>({run, r.elements_left + 1, r.alloc_left / 2 / sizeof(El)});
            if (cap > 1) v.reserve(static_cast<std::size_t>(cap));
          }
        }
        El& e = v.emplace_back();
        reset(e);
        if (!read_elem<E>(r, wt, e, field, at)) [[unlikely]] {
          push_index(r, v.size() - 1);
          return false;
        }
        return true;
      }
    }
  } else if constexpr (c == cat::map) {
    using K = typename T::key_type;
    using M = typename T::mapped_type;
    static_assert(map_key_ok<K> || is_multi_v<T>,
                  "refwire: protobuf map keys must be integers, bool, enums, strings or uuids (protobuf's rule); "
                  "use a vector of pairs (a repeated message) for other keys");
    if (wt != w_len) [[unlikely]] return fail_wire(r, at, field, wt, w_len);
    std::uint64_t n;
    if (!read_length(r, n, "map entry")) [[unlikely]] return false;
    if (r.elements_left == 0) [[unlikely]] return fail_elements(r, 1);
    --r.elements_left;
    if (!charge(r, sizeof(std::pair<K, M>) + 4 * sizeof(void*))) [[unlikely]] return false;
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope depth(r);
    sub_message sub(r, static_cast<std::size_t>(n));
    K key{};
    M value{};
    reset(value);
    bool have_key = false;
    const bool ok = for_each_tag(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* tat) {
      if (f == 1) {
        if (!read_key<E>(r, t, key, f, tat)) [[unlikely]] return -1;
        have_key = true;
        return 1;
      }
      if (f == 2) {
        if (!read_elem<E>(r, t, value, f, tat)) [[unlikely]] {
          if (have_key) push_entry_key(r, key);
          return -1;
        }
        return 1;
      }
      return 0;
    });
    if (!ok) [[unlikely]] return false;
    if constexpr (is_multi_v<T>) {
      v.emplace_hint(v.end(), std::move(key), std::move(value));  // a multimap: every entry kept, in order
    } else {
      v.insert_or_assign(std::move(key), std::move(value));  // protobuf: the last entry for a key wins
    }
    return true;
  }
}

/// seconds and nanos (read from the message at `at`) as the time value v.
template <class T>
bool time_from(reader& r, const std::byte* at, seconds_nanos sn, T& v) {
  constexpr std::int64_t giga = 1'000'000'000;
  // seconds and nanos of opposite signs are brought to the same sign first,
  // so that seconds * 10^9 cannot overflow when the sum fits (the earliest
  // timestamp is -9223372037 s + 145224192 ns).
  std::int64_t s = sn.seconds;
  std::int64_t n = sn.nanos;
  if (s < 0 && n > 0) {
    s += 1;
    n -= giga;
  } else if (s > 0 && n < 0) {
    s -= 1;
    n += giga;
  }
  std::int64_t ns;
  if (sn.nanos <= -giga || sn.nanos >= giga || __builtin_mul_overflow(s, giga, &ns) ||
      __builtin_add_overflow(ns, n, &ns)) [[unlikely]] {
    return fail_at(r, at, errc::invalid_value,
                   std::to_string(sn.seconds) + " s + " + std::to_string(sn.nanos) +
                       " ns does not fit in int64 nanoseconds");
  }
  using D = typename time_duration<T>::type;
  D d;
  if (wire::from_nanoseconds(ns, d) != wire::ns_conversion::ok) [[unlikely]] {
    return fail_at(r, at, errc::invalid_value,
                   std::to_string(ns) + " ns is not a whole number of the field's duration unit that its "
                                        "representation can hold");
  }
  if constexpr (is_timestamp<T>::value) v = T(d);
  else v = d;
  return true;
}

/// The wire type field N of type T is written with (8: none known up front,
/// e.g. through a codec).
template <class T, int_encoding E>
constexpr std::uint32_t field_wire() {
  constexpr cat c = category<T>();
  if constexpr (c == cat::codec) {
    return 8;
  } else if constexpr (singular<T>()) {
    return value_wire<T, E>();
  } else if constexpr (c == cat::optional) {
    using P = std::remove_cvref_t<decltype(*std::declval<T&>())>;
    if constexpr (has_codec<P>) return 8;
    else if constexpr (singular<P>()) return value_wire<P, E>();
    else return w_len;
  } else {
    return w_len;  // packed scalars, strings, messages, wrappers, map entries
  }
}

/// The tag of field N of type T when known and at most two bytes, else 0.
template <class T, int_encoding E, std::uint32_t N>
constexpr std::uint32_t expected_tag() {
  constexpr std::uint32_t wt = field_wire<T, E>();
  if constexpr (wt > 5 || N >= (1U << 11)) return 0;
  else return tag_v<N, static_cast<wire_type>(wt)>;
}

/// True (and the tag consumed) when the next bytes are the tag Tag.
template <std::uint32_t Tag>
REFWIRE_ALWAYS_INLINE bool take_tag(reader& r) noexcept {
  const auto* p = reinterpret_cast<const std::uint8_t*>(r.cur);
  if constexpr (Tag < 0x80) {
    if (r.cur == r.end || p[0] != Tag) return false;
    r.cur += 1;
  } else {
    if (r.left() < 2 || p[0] != ((Tag & 0x7f) | 0x80) || p[1] != (Tag >> 7)) return false;
    r.cur += 2;
  }
  return true;
}

/// One field of read_in_order; Slot is its position among the walked fields.
template <class F, std::size_t Slot, class M>
REFWIRE_ALWAYS_INLINE bool read_next_in_order(reader& r, M& member, std::uint32_t* counts) {
  constexpr int_encoding e = encoding_of<F>;
  constexpr std::uint32_t tag = expected_tag<M, e, number_of<F>()>();
  if constexpr (tag != 0) {
    constexpr bool many = category<M>() == cat::repeated || category<M>() == cat::map;
    do {
      const std::byte* at = r.cur;
      if (!take_tag<tag>(r)) break;
      if (!read_field<e>(r, tag & 7, member, number_of<F>(), at, counts[Slot])) [[unlikely]] {
        push_field(r, F::name, F::index);
        return false;
      }
    } while (many);
  }
  return true;
}

/// Expands the walked fields into one read_next_in_order each (the reader,
/// value and counts stay function arguments, not captures of a closure).
template <class T, class... Fs, std::size_t... Slot>
REFWIRE_ALWAYS_INLINE bool read_all_in_order([[maybe_unused]] reader& r, [[maybe_unused]] T& v,
                                             [[maybe_unused]] std::uint32_t* counts, boost::mp11::mp_list<Fs...>,
                                             std::index_sequence<Slot...>) {
  return (read_next_in_order<Fs, Slot>(r, Fs::get(v), counts) && ...);
}

/// The fields of a record in declaration order, each tested against its
/// compile-time tag (proto3 omits zero fields, so a miss moves on to the next
/// field). Stops at the first field out of order; the general loop reads the
/// rest (and anything unknown).
template <class T>
REFWIRE_ALWAYS_INLINE bool read_in_order(reader& r, T& v, std::uint32_t* counts) {
  using Fs = walked_fields_t<T>;
  return read_all_in_order(r, v, counts, Fs{}, std::make_index_sequence<boost::mp11::mp_size<Fs>::value>{});
}

/// Parses the fields of a message-like value from r.cur to r.end, merging
/// into v (which the caller has reset, or which holds an earlier occurrence).
template <class T>
bool read_body(reader& r, T& v) {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::timestamp || s == shape::duration) {
    const std::byte* start = r.cur;
    seconds_nanos sn = split_time(v);
    std::uint32_t count = 0;
    if (take_tag<tag_v<1, w_varint>>(r)) {
      if (!read_field<int_encoding::varint>(r, w_varint, sn.seconds, 1, start, count)) [[unlikely]] return false;
    }
    if (const std::byte* at = r.cur; take_tag<tag_v<2, w_varint>>(r)) {
      if (!read_field<int_encoding::varint>(r, w_varint, sn.nanos, 2, at, count)) [[unlikely]] return false;
    }
    const bool ok = for_each_tag(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* at) {
      if (f == 1) return read_field<int_encoding::varint>(r, t, sn.seconds, f, at, count) ? 1 : -1;
      if (f == 2) return read_field<int_encoding::varint>(r, t, sn.nanos, f, at, count) ? 1 : -1;
      return 0;
    });
    if (!ok) [[unlikely]] return false;
    return time_from(r, start, sn, v);
  } else if constexpr (s == shape::variant) {
    constexpr std::size_t alts = std::variant_size_v<T>;
    return for_each_tag(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* at) {
      if (f < 1 || f > alts) return 0;
      return boost::mp11::mp_with_index<alts>(static_cast<std::size_t>(f - 1), [&](auto I) {
        if (v.index() != I) {
          v.template emplace<I>();
          reset(*std::get_if<I>(&v));
        }
        if (!read_elem<int_encoding::varint>(r, t, *std::get_if<I>(&v), f, at)) [[unlikely]] {
          push_index(r, I);
          return -1;
        }
        return 1;
      });
    });
  } else if constexpr (s == shape::tuple) {
    constexpr std::size_t size = std::tuple_size_v<T>;
    std::array<std::uint32_t, size + 1> counts{};
    return for_each_tag(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* at) {
      if constexpr (size > 0) {
        if (f >= 1 && f <= size) {
          return boost::mp11::mp_with_index<size>(static_cast<std::size_t>(f - 1), [&](auto I) {
            if (!read_field<int_encoding::varint>(r, t, std::get<I>(v), f, at, counts[I])) [[unlikely]] {
              push_index(r, I);
              return -1;
            }
            return 1;
          });
        }
      }
      return 0;
    });
  } else {
    static_assert(s == shape::record);
    check_numbers<T>();
    std::array<std::uint32_t, boost::mp11::mp_size<walked_fields_t<T>>::value + 1> counts{};
    if (!read_in_order(r, v, counts.data())) [[unlikely]] return false;
    return for_each_tag(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* at) {
      int got = 0;  // not a field of T
      std::size_t slot = 0;
      detail::all_fields(v, [&](auto field, auto& member) {
        using F = decltype(field);
        const std::size_t my_slot = slot++;
        if (f != number_of<F>()) return true;
        got = read_field<encoding_of<F>>(r, t, member, f, at, counts[my_slot]) ? 1 : -1;
        if (got < 0) [[unlikely]] push_field(r, F::name, F::index);
        return false;
      });
      return got;
    });
  }
}

/// A top-level decode: the whole input is the message (see encode).
template <class T>
bool decode(reader& r, T& v) {
  if constexpr (has_codec<T>) {
    wire_type_t<T> tmp{};
    if (!decode(r, tmp)) return false;
    return from_wire(r, 0, std::move(tmp), v);
  } else if constexpr (top_level_message<T>()) {
    reset(v);
    if (r.depth_left == 0) [[unlikely]] return fail_depth(r);
    depth_scope depth(r);
    return read_body(r, v);
  } else {
    reset(v);
    std::uint32_t count = 0;
    constexpr std::uint32_t tag = expected_tag<T, int_encoding::varint, 1>();
    if constexpr (tag != 0) {
      for (const std::byte* at = r.cur; take_tag<tag>(r); at = r.cur) {
        if (!read_field<int_encoding::varint>(r, tag & 7, v, 1, at, count)) [[unlikely]] return false;
      }
    }
    return for_each_tag(r, [&](std::uint64_t f, std::uint32_t t, const std::byte* at) {
      if (f != 1) return 0;
      return read_field<int_encoding::varint>(r, t, v, f, at, count) ? 1 : -1;
    });
  }
}

}  // namespace refwire::detail::pb
