#pragma once
// The binary format's encoder: a staging writer and one write branch per
// shape. Layout: docs/binary-format.md.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include <refwire/serialization/detail/binary/size.hpp>
#include <refwire/serialization/detail/core/encode_failure.hpp>
#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/detail/core/text_bits.hpp>
#include <refwire/serialization/detail/core/walk.hpp>
#include <refwire/serialization/detail/wire/endian.hpp>
#include <refwire/serialization/detail/wire/output.hpp>
#include <refwire/serialization/detail/wire/utf8.hpp>
#include <refwire/serialization/detail/wire/varint.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire::detail::bin {

/// The blobs an encode left in the value's own memory instead of copying them
/// (encode_gather): blob k's bytes belong in the encoding at out[blobs[k].at],
/// so the whole encoding is out[0, at0) blob0 out[at0, at1) blob1 ... out[at_last, end).
/// Only contiguous runs of at least min_blob bytes that the value itself
/// holds (a std::vector<std::byte>, a std::string, a vector of arithmetic
/// values, a string_view) are left out, at most max_blobs of them; the rest
/// is copied as usual. The pointers stay valid while the value does.
struct gather_list {
  static constexpr std::size_t max_blobs = 8;
  static constexpr std::size_t min_blob = 64 * 1024;
  struct blob {
    std::size_t at = 0;
    const std::byte* data = nullptr;
    std::size_t size = 0;
  };
  blob blobs[max_blobs];
  std::size_t count = 0;
  std::size_t bytes = 0;  ///< the blobs' bytes, in all

  void clear() noexcept {
    count = 0;
    bytes = 0;
  }
};

/// Stages small writes on the stack and appends them to the output in blocks;
/// large byte runs go straight to the output. Nothing is zero-filled.
class writer {
 public:
  static constexpr std::size_t stage_size = 2048;

  explicit writer(std::vector<std::byte>& out, gather_list* gather = nullptr) noexcept
      : out_(out), gather_(gather) {}
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;

  template <class T>
  void put(T v) {
    if (static_cast<std::size_t>(lim_ - pos_) < sizeof(T)) flush();
    wire::store_le(pos_, v);
    pos_ += sizeof(T);
  }

  void put_varint(std::uint64_t v) {
    if (lim_ - pos_ < 10) flush();
    pos_ = wire::store_varint(pos_, v);
  }

  /// Makes room for n <= stage_size / 2 bytes: the unchecked puts that follow may use them.
  void reserve(std::size_t n) {
    if (static_cast<std::size_t>(lim_ - pos_) < n) flush();
  }

  /// Like put, after a reserve that covers it.
  template <class T>
  void put_unchecked(T v) noexcept {
    wire::store_le(pos_, v);
    pos_ += sizeof(T);
  }

  /// Like put_bytes of a size known at compile time, after a reserve that covers it.
  template <std::size_t N>
  void put_bytes_unchecked(const void* p) noexcept {
    std::memcpy(pos_, p, N);
    pos_ += N;
  }

  /// A string: its varint length then its bytes.
  void put_string(const std::string& v) {
    const std::size_t n = v.size();
    if (n < 0x80 && static_cast<std::size_t>(lim_ - pos_) > 0x80) [[likely]] {
      *pos_++ = static_cast<std::byte>(n);
      if (n < 16 && v.capacity() >= 15) {
        // The string's buffer holds capacity() + 1 >= 16 bytes: copy 16 (two
        // instructions, no memcpy call). Only n of them are kept, the rest of
        // the stage is overwritten by what follows or never flushed.
        std::memcpy(pos_, v.data(), 16);
      } else if (n >= 16 && n <= 32) {
        // Two overlapping 16-byte copies, both inside the string.
        std::memcpy(pos_, v.data(), 16);
        std::memcpy(pos_ + n - 16, v.data() + n - 16, 16);
      } else {
        std::memcpy(pos_, v.data(), n);
      }
      pos_ += n;
      return;
    }
    put_varint(n);
    put_blob(v.data(), n);
  }

  /// A run of bytes the value being written holds in its own memory: left
  /// there (recorded in the gather list) when it is large and a list is set,
  /// else copied like put_bytes.
  void put_blob(const void* p, std::size_t n) {
    if (gather_ != nullptr && n >= gather_list::min_blob && gather_->count < gather_list::max_blobs) {
      flush();
      gather_->blobs[gather_->count++] = {out_.size(), static_cast<const std::byte*>(p), n};
      gather_->bytes += n;
      return;
    }
    put_bytes(p, n);
  }

  /// Stops recording blobs while a temporary is written (a codec's wire
  /// value, a text's string), restoring the list on destruction.
  struct no_gather {
    writer& w;
    gather_list* saved;
    explicit no_gather(writer& wr) noexcept : w(wr), saved(wr.gather_) { wr.gather_ = nullptr; }
    ~no_gather() { w.gather_ = saved; }
    no_gather(const no_gather&) = delete;
    no_gather& operator=(const no_gather&) = delete;
  };

  void put_bytes(const void* p, std::size_t n) {
    if (n <= static_cast<std::size_t>(lim_ - pos_)) {
      if (n != 0) std::memcpy(pos_, p, n);
      pos_ += n;
      return;
    }
    flush();
    if (n < stage_size / 2) {
      std::memcpy(pos_, p, n);
      pos_ += n;
    } else {
      wire::append_bytes(out_, static_cast<const std::byte*>(p), n);
    }
  }

  void flush() {
    const auto n = static_cast<std::size_t>(pos_ - stage_);
    if (out_.capacity() - out_.size() >= n) {
      out_.insert(out_.end(), stage_, pos_);  // no reallocation: a memmove
    } else {
      wire::append_bytes(out_, stage_, n);
    }
    pos_ = stage_;
  }

 private:
  std::vector<std::byte>& out_;
  gather_list* gather_ = nullptr;
  std::byte stage_[stage_size];
  std::byte* pos_ = stage_;
  std::byte* const lim_ = stage_ + stage_size;
};

/// A part of a value whose binary encoding can fail: a duration (or a
/// timestamp's) wider than int64 nanoseconds, a std::filesystem::path whose
/// generic form is not UTF-8.
template <class T>
struct leaf_can_fail : std::bool_constant<is_path_v<T>> {};
template <class R, class P>
struct leaf_can_fail<std::chrono::duration<R, P>> : std::bool_constant<duration_can_fail<std::chrono::duration<R, P>>()> {};
template <class C, class D>
struct leaf_can_fail<std::chrono::time_point<C, D>> : leaf_can_fail<D> {};

/// True when encoding T can throw an encode_failure; only then do the
/// levels of its encoding add their path segments (encode_within).
template <class T>
inline constexpr bool can_fail = any_part<T, leaf_can_fail>();

template <class T>
void write(writer& w, const T& v);

/// Writes a fixed_size<T>() != 0 value after a reserve that covers it.
template <class T>
inline void write_fixed(writer& w, const T& v) {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::boolean) {
    w.put_unchecked(static_cast<std::uint8_t>(v ? 1 : 0));
  } else if constexpr (s == shape::enumeration && !is_raw_scalar_v<T>) {  // an enum over bool
    w.put_unchecked(static_cast<std::uint8_t>(static_cast<bool>(v) ? 1 : 0));
  } else if constexpr (s == shape::enumeration) {
    w.put_unchecked(static_cast<std::underlying_type_t<T>>(v));
  } else if constexpr (s == shape::integer || s == shape::floating) {
    w.put_unchecked(v);
  } else if constexpr (s == shape::uuid) {
    w.put_bytes_unchecked<16>(v.bytes.data());
  } else if constexpr (s == shape::timestamp) {
    w.put_unchecked(checked_nanoseconds(v.time_since_epoch()));
  } else if constexpr (s == shape::duration) {
    w.put_unchecked(checked_nanoseconds(v));
  } else {
    static_assert(s == shape::fixed_array);
    w.put_bytes_unchecked<fixed_size<T>()>(std::data(v));
  }
}

/// Writes field F of a record (with write_fixed when Fixed, after a reserve
/// that covers it); a field that can fail adds its path segment.
template <class F, bool Fixed, class T>
inline void write_field(writer& w, const T& v) {
  const auto put = [&] {
    if constexpr (Fixed) write_fixed(w, F::get(v));
    else write(w, F::get(v));
  };
  if constexpr (can_fail<typename F::type>) {
    encode_within(put, [](encode_failure& f) { push_field(f, F::name, F::index); });
  } else {
    put();
  }
}

/// Writes the fields of a record from field I on; a run of fixed-size fields
/// makes room once.
template <class L, std::size_t I, class T>
inline void write_fields(writer& w, const T& v) {
  using runs = field_runs<L>;
  if constexpr (I < runs::count) {
    constexpr std::size_t n = runs::length(I);
    if constexpr (n == 0) {
      write_field<boost::mp11::mp_at_c<L, I>, false>(w, v);
      write_fields<L, I + 1>(w, v);
    } else {
      w.reserve(runs::bytes(I, n));
      [&]<std::size_t... J>(std::index_sequence<J...>) {
        (write_field<boost::mp11::mp_at_c<L, I + J>, true>(w, v), ...);
      }(std::make_index_sequence<n>{});
      write_fields<L, I + n>(w, v);
    }
  }
}

/// Writes element e of a container at position i; an element that can fail
/// adds its index to the path.
template <class E>
inline void write_element(writer& w, const E& e, std::size_t i) {
  if constexpr (can_fail<E>) {
    encode_within([&] { write(w, e); }, [i](encode_failure& f) { push_index(f, i); });
  } else {
    write(w, e);
  }
}

/// Writes the elements of c, each as an E (vector<bool>'s proxies as bool).
template <class E, class C>
inline void write_elements(writer& w, const C& c) {
  if constexpr (can_fail<E>) {
    std::size_t i = 0;
    for (const auto& e : c) write_element(w, static_cast<const E&>(e), i++);
  } else {
    for (const auto& e : c) write(w, static_cast<const E&>(e));
  }
}

template <class Tuple, std::size_t... I>
void write_tuple(writer& w, const Tuple& t, std::index_sequence<I...>) {
  (write_element(w, std::get<I>(t), I), ...);
}

template <class T>
void write(writer& w, const T& v) {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::codec) {
    const writer::no_gather temporary(w);  // to_wire may return a temporary
    write(w, codec<T>::to_wire(v));
  } else if constexpr (s == shape::boolean) {
    w.put(static_cast<std::uint8_t>(v ? 1 : 0));
  } else if constexpr (s == shape::enumeration && !is_raw_scalar_v<T>) {  // an enum over bool
    write(w, static_cast<bool>(v));
  } else if constexpr (s == shape::enumeration) {
    w.put(static_cast<std::underlying_type_t<T>>(v));
  } else if constexpr (s == shape::integer || s == shape::floating) {
    w.put(v);
  } else if constexpr (s == shape::string && is_string_view_v<T>) {  // the same bytes as a std::string
    w.put_varint(v.size());
    w.put_blob(v.data(), v.size());
  } else if constexpr (s == shape::string) {
    w.put_string(v);
  } else if constexpr (s == shape::text) {
    const writer::no_gather temporary(w);
    const std::string text = text_of(v);
    if constexpr (is_path_v<T>) {
      if (!wire::utf8_valid(text.data(), text.size())) [[unlikely]] throw_path_not_utf8(text);
    }
    w.put_string(text);
  } else if constexpr (s == shape::bitset) {
    std::byte bytes[bitset_bytes<bitset_size<T>> + 1];
    bitset_to_bytes(v, bytes);
    w.put_bytes(bytes, bitset_bytes<bitset_size<T>>);
  } else if constexpr (s == shape::blob) {
    w.put_varint(v.size());
    w.put_blob(v.data(), v.size());
  } else if constexpr (s == shape::uuid) {
    w.put_bytes(v.bytes.data(), 16);
  } else if constexpr (s == shape::timestamp) {
    w.put(checked_nanoseconds(v.time_since_epoch()));
  } else if constexpr (s == shape::duration) {
    w.put(checked_nanoseconds(v));
  } else if constexpr (s == shape::optional || s == shape::pointer) {
    if (v) {
      w.put(std::uint8_t{1});
      write(w, *v);
    } else {
      w.put(std::uint8_t{0});
    }
  } else if constexpr (is_raw_vector<T>) {
    w.put_varint(v.size());
    w.put_blob(v.data(), v.size() * sizeof(typename T::value_type));
  } else if constexpr (s == shape::sequence || s == shape::set) {
    w.put_varint(v.size());
    write_elements<typename T::value_type>(w, v);
  } else if constexpr (s == shape::map) {
    w.put_varint(v.size());
    if constexpr (can_fail<T>) {
      std::size_t i = 0;
      for (const auto& entry : v) {  // not a structured binding: clang 14 cannot capture one
        encode_within(
            [&] {
              write(w, entry.first);
              write(w, entry.second);
            },
            [&](encode_failure& f) { push_map_key(f, entry.first, i); });
        ++i;
      }
    } else {
      for (const auto& [key, value] : v) {
        write(w, key);
        write(w, value);
      }
    }
  } else if constexpr (s == shape::fixed_array) {
    using E = typename element_of<T>::type;
    if constexpr (memcpy_ok<E>) {
      w.put_bytes(std::data(v), sizeof(E) * fixed_extent<T>);
    } else {
      write_elements<E>(w, v);
    }
  } else if constexpr (s == shape::variant) {
    w.put_varint(v.index());
    std::visit([&](const auto& alt) { write_element(w, alt, v.index()); }, v);
  } else if constexpr (s == shape::tuple) {
    write_tuple(w, v, std::make_index_sequence<std::tuple_size_v<T>>{});
  } else if constexpr (s == shape::record) {
    write_fields<walked_fields_t<T>, 0>(w, v);
  } else {
    static_assert(dependent_false<T>,
                  "refwire: this type is not serializable: describe it with BOOST_DESCRIBE_STRUCT, "
                  "make it an aggregate, or specialize refwire::codec<T>");
  }
}

/// Appends the encoding of v to out; an encode failure becomes refwire::encode_error.
template <class T>
inline void encode(const T& v, std::vector<std::byte>& out) {
  if constexpr (can_fail<T>) {
    encode_entry([&] {
      writer w(out);
      write(w, v);
      w.flush();
    });
  } else {
    writer w(out);
    write(w, v);
    w.flush();
  }
}

/// Like encode, but large runs of bytes that v holds itself stay in v's
/// memory: they are listed in gather (cleared first) instead of copied into
/// out, for a caller that sends out and the blobs as one gather write while
/// v lives. Bytes on the wire are the same as encode's.
///   gather_list g;  encode_gather(request, out, g);  // out + g.bytes == the encoding's size
template <class T>
inline void encode_gather(const T& v, std::vector<std::byte>& out, gather_list& gather) {
  gather.clear();
  if constexpr (can_fail<T>) {
    encode_entry([&] {
      writer w(out, &gather);
      write(w, v);
      w.flush();
    });
  } else {
    writer w(out, &gather);
    write(w, v);
    w.flush();
  }
}

}  // namespace refwire::detail::bin
