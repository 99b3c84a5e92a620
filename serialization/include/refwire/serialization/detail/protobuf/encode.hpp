#pragma once
// The protobuf format's encoder: one pass through the staging writer
// (writer.hpp), the cursor passed and returned. A nested message (or
// wrapper, map entry, packed varint run) reserves one length byte, writes
// its body and patches the byte, moving the body forward only when it is 128
// bytes or longer. A value that has no encoding (a std::string that is not
// UTF-8, a time outside int64 nanoseconds) throws an encode_failure, and each
// level it passes adds its path segment, in types whose encoding can fail
// only (can_fail). Mapping: docs/protobuf-format.md.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include <refwire/serialization/detail/core/encode_failure.hpp>
#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/detail/core/text_bits.hpp>
#include <refwire/serialization/detail/protobuf/classify.hpp>
#include <refwire/serialization/detail/protobuf/packed.hpp>
#include <refwire/serialization/detail/protobuf/writer.hpp>
#include <refwire/serialization/detail/wire/config.hpp>
#include <refwire/serialization/detail/wire/utf8.hpp>
#include <refwire/serialization/detail/wire/varint.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire::detail::pb {

/// An encode failure: protobuf's string fields must hold UTF-8 (the text is
/// quoted, shortened; src/protobuf/encode.cpp).
[[noreturn]] void throw_invalid_utf8(std::string_view text);

/// UTF-8 check for the encoder: up to 64 bytes are tested for ASCII in a
/// few word loads (some overlapping), all inside [p, p + n), without a loop;
/// longer text goes to wire::utf8_valid.
REFWIRE_ALWAYS_INLINE bool text_valid(const char* p, std::size_t n) noexcept {
  if (n > 64) return wire::utf8_valid(p, n);
  const auto word = [p](std::size_t at) {
    std::uint64_t x;
    std::memcpy(&x, p + at, 8);
    return x;
  };
  std::uint64_t any;
  if (n >= 8) {
    any = word(0) | word(n - 8);
    if (n > 16) any |= word(8) | word(n - 16);
    if (n > 32) any |= word(16) | word(24) | word(n - 32) | word(n - 24);
  } else if (n >= 4) {
    std::uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    any = a | b;
  } else if (n != 0) {
    any = static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[n / 2]) |
          static_cast<unsigned char>(p[n - 1]);
  } else {
    return true;
  }
  if ((any & 0x8080808080808080ULL) == 0) [[likely]] return true;
  return wire::utf8_valid_slow(p, n);
}

template <class T> std::byte* put_body(writer& w, std::byte* p, const T& v);
template <std::uint32_t N, int_encoding E, class T>
REFWIRE_ALWAYS_INLINE std::byte* put_field(writer& w, std::byte* p, const T& v);

/// The most bytes a field of type T takes (tag included) when it is written
/// with stores alone, bounded at compile time: scalars and uuids; else 0.
template <class T>
constexpr std::size_t fixed_room() {
  if constexpr (has_codec<T>) return 0;
  else if constexpr (category<T>() == cat::scalar) return 5 + 10;
  else if constexpr (category<T>() == cat::uuid) return 5 + 17;
  else return 0;
}

/// proto3 leaves out a zero scalar and a nil uuid.
template <class T>
constexpr bool fixed_is_default(const T& v) noexcept {
  if constexpr (category<T>() == cat::scalar) return scalar_is_zero(v);
  else return v.is_nil();
}

/// Field N holding a scalar or uuid v, at p with fixed_room<T>() bytes of room.
template <std::uint32_t N, int_encoding E, class T>
REFWIRE_ALWAYS_INLINE std::byte* store_elem(std::byte* p, const T& v) noexcept {
  if constexpr (category<T>() == cat::scalar) {
    return store_scalar<T, E>(store_tag<tag_v<N, value_wire<T, E>()>>(p), v);
  } else {
    return store_short_bytes(store_tag<tag_v<N, w_len>>(p), v.bytes.data(), 16, true);
  }
}

/// Field N holding a string or bytes (the caller has decided to write it).
template <std::uint32_t N, class T>
REFWIRE_ALWAYS_INLINE std::byte* put_text(writer& w, std::byte* p, const T& v) {
  const std::size_t n = v.size();
  if constexpr (is_string_v<T>) {
    if (!text_valid(v.data(), n)) [[unlikely]] throw_invalid_utf8(v);
  }
  p = store_tag<tag_v<N, w_len>>(w.ensure(p, 5 + 65));
  if (n <= 64) [[likely]] {
    bool padded = false;
    if constexpr (std::is_same_v<T, std::string>) padded = v.capacity() >= 15;  // not a std::string_view
    return store_short_bytes(p, v.data(), n, padded);
  }
  return w.put_bytes(wire::store_varint_wide(p, n), v.data(), n);
}

/// One occurrence of field N holding v, always written (repeated elements,
/// map keys and values, oneof alternatives, present optionals).
template <std::uint32_t N, int_encoding E, class T>
REFWIRE_ALWAYS_INLINE std::byte* put_elem(writer& w, std::byte* p, const T& v) {
  if constexpr (has_codec<T>) {
    return put_elem<N, E>(w, p, codec<T>::to_wire(v));
  } else if constexpr (fixed_room<T>() != 0) {
    return store_elem<N, E>(w.ensure(p, fixed_room<T>()), v);
  } else if constexpr (category<T>() == cat::string || category<T>() == cat::blob) {
    return put_text<N>(w, p, v);
  } else if constexpr (category<T>() == cat::text) {
    return put_text<N>(w, p, text_of(v));  // checked to be UTF-8 as a std::string is
  } else if constexpr (category<T>() == cat::bits) {
    std::array<std::byte, bitset_bytes<bitset_size<T>>> bytes;
    bitset_to_bytes(v, bytes.data());
    return put_text<N>(w, p, bytes);
  } else {
    p = store_tag<tag_v<N, w_len>>(w.ensure(p, 6));
    const std::size_t at = w.offset(p);
    if constexpr (category<T>() == cat::message) {
      p = put_body(w, p + 1, v);
    } else {
      p = put_field<1, E>(w, p + 1, v);  // the wrapper of a non-singular value
    }
    return w.close(p, at);
  }
}

/// Field 1 of a map entry, its key: a uuid as its canonical 36-character
/// string (protobuf's keys cannot be bytes), anything else as put_elem
/// writes it (an enum as its integer).
template <int_encoding E, class K>
REFWIRE_ALWAYS_INLINE std::byte* put_key(writer& w, std::byte* p, const K& key) {
  if constexpr (is_uuid_v<K>) {
    std::array<char, 36> text;
    key.to_chars(text.data());
    return put_text<1>(w, p, text);
  } else {
    return put_elem<1, E>(w, p, key);
  }
}

/// A container whose elements are in one array (a path index is computed
/// from an element's address, not counted in the loop).
template <class C>
inline constexpr bool contiguous = is_vector<C>::value || shape_of<C>() == shape::fixed_array;

/// The index of element e of c for a path: from its address when c is
/// contiguous, else the count i kept by the loop.
template <class C, class E>
std::size_t position_of(const C& c, const E& e, std::size_t i) noexcept {
  if constexpr (contiguous<C>) return static_cast<std::size_t>(std::addressof(e) - std::data(c));
  else return i;
}

/// Field N holding v, under proto3's rules: zero scalars, empty strings and
/// empty containers are not written; messages always are.
template <std::uint32_t N, int_encoding E, class T>
REFWIRE_ALWAYS_INLINE std::byte* put_field(writer& w, std::byte* p, const T& v) {
  constexpr cat c = category<T>();
  if constexpr (c == cat::codec) {
    return put_field<N, E>(w, p, codec<T>::to_wire(v));
  } else if constexpr (c == cat::scalar || c == cat::uuid) {
    return fixed_is_default(v) ? p : put_elem<N, E>(w, p, v);
  } else if constexpr (c == cat::string || c == cat::blob || c == cat::text) {
    return v.empty() ? p : put_elem<N, E>(w, p, v);
  } else if constexpr (c == cat::bits) {
    return v.none() ? p : put_elem<N, E>(w, p, v);  // all zeros: proto3's empty bytes, not written
  } else if constexpr (c == cat::message) {
    return put_elem<N, E>(w, p, v);
  } else if constexpr (c == cat::optional) {
    return v ? put_elem<N, E>(w, p, *v) : p;
  } else if constexpr (c == cat::repeated) {
    using El = repeated_elem_t<T>;
    const std::size_t count = container_size(v);
    if (count == 0) return p;
    if constexpr (packable<El>()) {
      return put_packed<N, E>(w, p, v, count);  // scalars: cannot fail
    } else if constexpr (category<El>() == cat::message) {
      // A run of messages: each reserves as many length bytes as the previous one needed.
      std::size_t k = 1;
      [[maybe_unused]] std::size_t i = 0;
      for (const auto& e : v) {
        p = store_tag<tag_v<N, w_len>>(w.ensure(p, 7));
        const std::size_t at = w.offset(p);
        if constexpr (can_fail<El>) {
          p = encode_within(
              [&]() REFWIRE_ALWAYS_INLINE_LAMBDA { return put_body(w, p + k, static_cast<const El&>(e)); },
              [&](encode_failure& f) { push_index(f, position_of(v, e, i)); });
          if constexpr (!contiguous<T>) ++i;
        } else {
          p = put_body(w, p + k, static_cast<const El&>(e));
        }
        p = w.close_run(p, at, k);
      }
      return p;
    } else if constexpr (can_fail<El>) {
      [[maybe_unused]] std::size_t i = 0;
      for (const auto& e : v) {
        p = encode_within(
            [&]() REFWIRE_ALWAYS_INLINE_LAMBDA { return put_elem<N, E>(w, p, static_cast<const El&>(e)); },
            [&](encode_failure& f) { push_index(f, position_of(v, e, i)); });
        if constexpr (!contiguous<T>) ++i;
      }
      return p;
    } else {
      for (const auto& e : v) p = put_elem<N, E>(w, p, static_cast<const El&>(e));
      return p;
    }
  } else if constexpr (c == cat::map) {
    using K = typename T::key_type;
    static_assert(map_key_ok<K> || is_multi_v<T>,
                  "refwire: protobuf map keys must be integers, bool, enums, strings or uuids (protobuf's rule); "
                  "use a vector of pairs (a repeated message) for other keys");
    if constexpr (can_fail<T>) {
      for (const auto& entry : v) {  // not a structured binding: clang 14 cannot capture one
        p = encode_within(
            [&]() REFWIRE_ALWAYS_INLINE_LAMBDA {
              std::byte* q = store_tag<tag_v<N, w_len>>(w.ensure(p, 15));
              const std::size_t at = w.offset(q);
              q = put_key<E>(w, q + 1, entry.first);
              q = put_elem<2, E>(w, q, entry.second);
              return w.close(q, at);
            },
            [&](encode_failure& f) { push_entry_key(f, entry.first); });
      }
    } else {
      for (const auto& [key, value] : v) {
        p = store_tag<tag_v<N, w_len>>(w.ensure(p, 15));
        const std::size_t at = w.offset(p);
        p = put_key<E>(w, p + 1, key);
        p = put_elem<2, E>(w, p, value);
        p = w.close(p, at);
      }
    }
    return p;
  }
}

/// For each of a record's fields, the room to check before it: the sum of
/// fixed_room over the run of consecutive fixed-room fields it starts (runs
/// of at most 512 bytes), 0 inside a run and for other fields (which check
/// their own).
template <class... Fs>
constexpr std::array<std::size_t, sizeof...(Fs)> run_rooms() {
  const std::array<std::size_t, sizeof...(Fs)> room{fixed_room<typename Fs::type>()...};
  std::array<std::size_t, sizeof...(Fs)> run{};
  std::size_t start = 0;
  for (std::size_t i = 0; i < room.size(); ++i) {
    if (room[i] == 0) continue;
    if (i == 0 || room[i - 1] == 0 || run[start] + room[i] > 512) start = i;
    run[start] += room[i];
  }
  return run;
}

/// Field F of a record: a fixed-room field after its run's room check (Room,
/// when it starts the run), any other through put_field; a field that can
/// fail adds its path segment.
template <class F, std::size_t Room, class T>
REFWIRE_ALWAYS_INLINE std::byte* put_member(writer& w, std::byte* p, const T& v) {
  constexpr std::uint32_t n = number_of<F>();
  constexpr int_encoding e = encoding_of<F>;
  if constexpr (can_fail<T>) {
    return encode_within([&]() REFWIRE_ALWAYS_INLINE_LAMBDA { return put_field<n, e>(w, p, v); },
                         [](encode_failure& f) { push_field(f, F::name, F::index); });
  } else if constexpr (fixed_room<T>() == 0) {
    return put_field<n, e>(w, p, v);
  } else {
    if constexpr (Room != 0) p = w.ensure(p, Room);
    return fixed_is_default(v) ? p : store_elem<n, e>(p, v);
  }
}

/// A record's fields, in a fold of calls that keeps the cursor local (a
/// lambda capturing it by reference, as for_each_field takes, would keep it
/// in memory when not inlined).
template <class T, class... Fs, std::size_t... I>
REFWIRE_ALWAYS_INLINE std::byte* put_fields(writer& w, std::byte* p, const T& v, boost::mp11::mp_list<Fs...>,
                                            std::index_sequence<I...>) {
  [[maybe_unused]] static constexpr std::array<std::size_t, sizeof...(Fs)> rooms = run_rooms<Fs...>();
  ((p = put_member<Fs, rooms[I]>(w, p, Fs::get(v))), ...);
  return p;
}

/// Element I of a tuple (field I + 1); one that can fail adds its index.
template <std::size_t I, class T>
REFWIRE_ALWAYS_INLINE std::byte* put_item(writer& w, std::byte* p, const T& v) {
  constexpr auto n = static_cast<std::uint32_t>(I + 1);
  if constexpr (can_fail<element_value_t<std::tuple_element_t<I, T>>>) {
    return encode_within(
        [&]() REFWIRE_ALWAYS_INLINE_LAMBDA { return put_field<n, int_encoding::varint>(w, p, std::get<I>(v)); },
        [](encode_failure& f) { push_index(f, I); });
  } else {
    return put_field<n, int_encoding::varint>(w, p, std::get<I>(v));
  }
}

/// The fields of a message-like value (record, tuple, variant, timestamp,
/// duration), from the cursor p; returns the cursor after them. Inlined
/// into the top-level encode; nested messages go through put_body.
template <class T>
REFWIRE_ALWAYS_INLINE std::byte* put_message(writer& w, std::byte* p, const T& v) {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::timestamp || s == shape::duration) {
    const seconds_nanos sn = split_time(v);
    p = put_field<1, int_encoding::varint>(w, p, sn.seconds);
    return put_field<2, int_encoding::varint>(w, p, sn.nanos);
  } else if constexpr (s == shape::variant) {
    return boost::mp11::mp_with_index<std::variant_size_v<T>>(v.index(), [&](auto I) {
      constexpr std::size_t index = I;
      constexpr auto n = static_cast<std::uint32_t>(index + 1);
      const auto& alt = *std::get_if<index>(&v);
      if constexpr (can_fail<std::variant_alternative_t<index, T>>) {
        return encode_within(
            [&]() REFWIRE_ALWAYS_INLINE_LAMBDA { return put_elem<n, int_encoding::varint>(w, p, alt); },
            [](encode_failure& f) { push_index(f, index); });
      } else {
        return put_elem<n, int_encoding::varint>(w, p, alt);
      }
    });
  } else if constexpr (s == shape::tuple) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((p = put_item<I>(w, p, v)), ...);
    }(std::make_index_sequence<std::tuple_size_v<T>>{});
    return p;
  } else {
    static_assert(s == shape::record);
    check_numbers<T>();
    using Fs = walked_fields_t<T>;
    return put_fields(w, p, v, Fs{}, std::make_index_sequence<boost::mp11::mp_size<Fs>::value>{});
  }
}

template <class T>
std::byte* put_body(writer& w, std::byte* p, const T& v) {
  return put_message(w, p, v);
}

/// A top-level value: a record, tuple or variant is the message; anything
/// else (timestamps and durations included) is field 1 of a wrapper message.
template <class T>
REFWIRE_ALWAYS_INLINE std::byte* encode(writer& w, std::byte* p, const T& v) {
  if constexpr (has_codec<T>) {
    return encode(w, p, codec<T>::to_wire(v));
  } else if constexpr (top_level_message<T>()) {
    return put_message(w, p, v);
  } else {
    return put_field<1, int_encoding::varint>(w, p, v);
  }
}

/// Appends v's encoding to out; an encode failure becomes refwire::encode_error,
/// and no partial encoding is left behind.
template <class T>
void encode_into(std::vector<std::byte>& out, const T& v) {
  const std::size_t old = out.size();
  try {
    writer w(out);
    w.finish(encode(w, w.start(), v));
  } catch (encode_failure& f) {
    out.resize(old);
    throw_encode_error(f);
  } catch (...) {
    out.resize(old);
    throw;
  }
}

}  // namespace refwire::detail::pb
