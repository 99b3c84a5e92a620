#pragma once
// refwire/serialization/serialize.hpp: the entry points, the same for every format.
//
//   std::vector<std::byte> b = refwire::serialize(p);                 // binary
//   refwire::serialize<refwire::binary>(p, buffer);                   // reused buffer
//   point q = refwire::deserialize<point>(b);                         // throws decode_error
//   refwire::error e = refwire::deserialize<refwire::binary>(b, q);   // no-throw
//   refwire::error v = refwire::deserialize_view<refwire::binary>(b, r);  // r's string_view / span
//                                                     // fields point into b (docs/views.md)
//
// This header defines no format: each format's header (binary.hpp, json.hpp,
// protobuf.hpp) includes it, and <refwire/serialization.hpp> has them all.
// The default format, refwire::binary, is only declared here; calling
// serialize(v) without naming a format needs binary.hpp (or the umbrella).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <refwire/serialization/compression.hpp>
#include <refwire/serialization/detail/core/diagnose.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/format.hpp>
#include <refwire/serialization/options.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire {

/// The default format of serialize / deserialize / save_snapshot, defined in
/// binary.hpp. Only named here: `format<binary>` is checked where an entry
/// point is called, by which time binary.hpp has defined it.
struct binary;
/// Defined in json.hpp; named here for deserialize_view's check of byte views.
struct json;

namespace detail {

/// True when T can be used with F; otherwise fails with one readable message
/// naming the offending field (callers skip the format call then, so no
/// second error follows). See detail/core/diagnose.hpp.
template <class T, class F>
constexpr bool check_serializable() {
  return check_carried<T, !F::positional>();
}

/// The throwing deserialize (Snapshot: load_snapshot / decode_snapshot)
/// decodes into a value-initialized T: true when it can, otherwise one
/// readable error.
template <class T, bool Snapshot = false>
constexpr bool check_default_constructible() {
  static_assert(Snapshot || std::is_default_constructible_v<T>,
                "refwire: deserialize<T>: T must be default constructible (it is decoded into a value-initialized "
                "T); add a default constructor, or decode into an existing object with "
                "deserialize<Format>(bytes, value)");
  static_assert(!Snapshot || std::is_default_constructible_v<T>,
                "refwire: load_snapshot<T> / decode_snapshot<T>: T must be default constructible (it is decoded "
                "into a value-initialized T); add a default constructor");
  return std::is_default_constructible_v<T>;
}

inline std::span<const std::byte> as_bytes(std::string_view s) noexcept {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

/// The compression hook, the same for every format: appends v in format F to
/// out, wrapped in the compression envelope when options ask for it
/// (snapshots pass envelope_framing::bare: their payload has no magic).
template <class F, class T>
void encode_append(const T& v, std::vector<std::byte>& out, const encode_options& options,
                   envelope_framing framing = envelope_framing::magic) {
  if (options.compression == compression::none) {
    F::encode(v, out, options);
    return;
  }
  compression_scratch scratch;
  F::encode(v, scratch.buffer(), options);
  append_envelope(scratch.buffer(), out, options, framing);
}

/// decode_with's body, for a T that holds no view.
template <class F, class T>
error decode_copying(std::span<const std::byte> in, T& out, const decode_options& options, std::size_t* consumed,
                     envelope_framing framing) {
  if (options.compression == compression::none) return F::decode(in, out, options, consumed);
  compression_scratch scratch;
  opened_envelope env;
  if (error e = open_envelope(in, scratch.buffer(), options, consumed != nullptr, env, framing)) return e;
  if (error e = F::decode(env.payload, out, options, nullptr)) return e;
  if (consumed != nullptr) *consumed = env.size;
  return {};
}

/// The decoding side of the hook: opens the envelope (when options say the
/// input has one), then lets F decode the original bytes, which must span the
/// envelope's data. Offsets in a payload error are offsets in the original
/// (decompressed) bytes; envelope errors have offsets in `in`.
///
/// Every decode that copies out of its input (deserialize, deserialize_prefix,
/// from_json, snapshots) comes here: a T with a view field (std::string_view,
/// std::span<const std::byte>) is one compile error naming the field and
/// deserialize_view, and F is not called.
template <class F, class T>
error decode_with(std::span<const std::byte> in, T& out, const decode_options& options, std::size_t* consumed,
                  envelope_framing framing = envelope_framing::magic) {
  if constexpr (!check_decodable<T>()) {
    return {};  // not reached: the check failed to compile
  } else if constexpr (!check_owning<T>()) {
    return {};  // not reached: the check failed to compile
  } else {
    return decode_copying<F>(in, out, options, consumed, framing);
  }
}

}  // namespace detail

/// Encodes v in format F (binary by default) into a new buffer.
///
///   std::vector<std::byte> bytes = refwire::serialize(p);
template <format F = binary, class T>
[[nodiscard]] std::vector<std::byte> serialize(const T& v, const encode_options& options = {}) {
  std::vector<std::byte> out;
  if constexpr (detail::check_serializable<T, F>()) detail::encode_append<F>(v, out, options);
  return out;
}

/// Encodes v into out, which is cleared first; its capacity is kept, so a
/// buffer reused across calls stops allocating.
///
///   std::vector<std::byte> buf;
///   for (const auto& p : points) { refwire::serialize<refwire::binary>(p, buf); send(buf); }
template <format F = binary, class T>
void serialize(const T& v, std::vector<std::byte>& out, const encode_options& options = {}) {
  out.clear();
  if constexpr (detail::check_serializable<T, F>()) detail::encode_append<F>(v, out, options);
}

/// serialize<F> with an F that is not a format: one readable error instead of
/// a list of candidates (the overloads above require refwire::format<F>).
template <class F, class T>
  requires(!format<F>)
std::vector<std::byte> serialize(const T& /*v*/, const encode_options& /*options*/ = {}) {
  static_assert(detail::dependent_false<F>,
                "refwire: serialize<F>: F is not a format (refwire::format<F> is false): use refwire::binary, "
                "refwire::json, refwire::protobuf, or a tag with name, id, positional, encode and decode");
  return {};
}

/// The reused-buffer form of the overload above.
template <class F, class T>
  requires(!format<F>)
void serialize(const T& /*v*/, std::vector<std::byte>& /*out*/, const encode_options& /*options*/ = {}) {
  static_assert(detail::dependent_false<F>,
                "refwire: serialize<F>: F is not a format (refwire::format<F> is false): use refwire::binary, "
                "refwire::json, refwire::protobuf, or a tag with name, id, positional, encode and decode");
}

/// Decodes a T in format F (binary by default); throws refwire::decode_error.
///
///   point p = refwire::deserialize<point>(bytes);
template <class T, format F = binary>
  requires(!format<T>)
[[nodiscard]] T deserialize(std::span<const std::byte> in, const decode_options& options = {}) {
  if constexpr (!detail::check_serializable<T, F>()) {
    std::abort();  // not reached: the check failed to compile
  } else if constexpr (!detail::check_decodable<T>()) {
    std::abort();  // not reached: the check failed to compile
  } else if constexpr (!detail::check_default_constructible<T>()) {
    std::abort();  // not reached: the check failed to compile
  } else {
    T out{};
    if (error e = detail::decode_with<F>(in, out, options, nullptr)) throw decode_error(std::move(e));
    return out;
  }
}

/// Text-input form of the throwing deserialize (JSON text, or bytes kept in a std::string).
template <class T, format F = binary>
  requires(!format<T>)
[[nodiscard]] T deserialize(std::string_view in, const decode_options& options = {}) {
  return deserialize<T, F>(detail::as_bytes(in), options);
}

/// Decodes into out without throwing; returns a falsy error on success. On
/// failure out holds a partly decoded value: valid, but not meaningful.
///
///   point p;
///   if (refwire::error e = refwire::deserialize<refwire::binary>(bytes, p)) log(e.message());
template <format F, class T>
[[nodiscard]] error deserialize(std::span<const std::byte> in, T& out, const decode_options& options = {}) {
  if constexpr (detail::check_serializable<T, F>()) {
    return detail::decode_with<F>(in, out, options, nullptr);
  } else {
    return {};
  }
}

/// Text-input form of the non-throwing deserialize.
template <format F, class T>
[[nodiscard]] error deserialize(std::string_view in, T& out, const decode_options& options = {}) {
  return deserialize<F>(detail::as_bytes(in), out, options);
}

/// Decodes one value from the front of in and stores how many bytes it took
/// in consumed; bytes after it are left alone (for streams of values). With
/// decode_options::compression the value is one whole envelope (which records
/// its own length) and consumed is the envelope's length.
///
///   std::size_t used = 0;
///   while (!in.empty()) { if (auto e = refwire::deserialize_prefix<refwire::binary>(in, v, used)) break;
///                         handle(v); in = in.subspan(used); }
template <format F, class T>
[[nodiscard]] error deserialize_prefix(std::span<const std::byte> in, T& out, std::size_t& consumed,
                                       const decode_options& options = {}) {
  consumed = 0;
  if constexpr (detail::check_serializable<T, F>()) {
    return detail::decode_with<F>(in, out, options, &consumed);
  } else {
    return {};
  }
}

namespace detail {

/// deserialize_view with decode_options::compression set: decompressed bytes
/// live in a scratch buffer, so no view could point into the input.
inline error compressed_view_input() {
  return error(errc::invalid_value, 0, "$",
               "deserialize_view cannot decode compressed input (decode_options::compression must be none: "
               "a view cannot point into decompressed bytes)");
}

/// deserialize_view's body: F decodes straight from in, so the views point
/// into it. On failure out is reset (when T allows it): no view into a
/// buffer of the failed decode survives.
template <class F, class T>
error decode_views(std::span<const std::byte> in, T& out, const decode_options& options) {
  if (options.compression != compression::none) [[unlikely]] return compressed_view_input();
  error e = F::decode(in, out, options, nullptr);
  if constexpr (std::is_default_constructible_v<T> && std::is_move_assignable_v<T>) {
    if (e) [[unlikely]] out = T{};
  }
  return e;
}

/// True when F can fill T with deserialize_view: F carries T, and (JSON)
/// no byte view is asked of base64 text. Otherwise one readable error.
template <class T, class F>
constexpr bool check_view_decodable() {
  if constexpr (!check_serializable<T, F>()) {
    return false;
  } else if constexpr (!check_decodable<T>()) {
    return false;
  } else {
    return check_viewable<T, std::is_same_v<F, refwire::json>>();
  }
}

/// An owning buffer passed as a temporary: the views would dangle.
template <class B>
inline constexpr bool temporary_buffer =
    std::is_same_v<std::remove_cv_t<B>, std::vector<std::byte>> || std::is_same_v<std::remove_cv_t<B>, std::string>;

template <class B>
constexpr void view_of_temporary() {
  static_assert(dependent_false<B>,
                "refwire: deserialize_view: the input is a temporary that is destroyed at the end of the "
                "statement, so the views would dangle: keep the bytes in a variable that outlives the value");
}

}  // namespace detail

/// Decodes into out without copying the bytes of its std::string_view and
/// std::span<const std::byte> fields (also inside containers, optionals and
/// nested structs): they point into in. The views are valid while the buffer
/// behind in lives and is unchanged. Returns a falsy error on success; on
/// failure out is reset to T{} (when T is default constructible and move
/// assignable). Binary and protobuf check every view's bounds as a copy's
/// (protobuf strings must be UTF-8); JSON gives a view only of a string
/// without escapes (one with a backslash is invalid_value) and cannot view
/// bytes (base64: a std::span<const std::byte> is a compile error).
/// Containers of views allocate as usual; the views themselves allocate
/// nothing. decode_options::compression must be none (invalid_value), and
/// snapshots have no view form. Types without views decode as with deserialize.
///
///   struct request { std::string_view path; std::span<const std::byte> body; };
///   BOOST_DESCRIBE_STRUCT(request, (), (path, body))
///   std::vector<std::byte> bytes = read_message();    // must outlive req
///   request req;
///   if (refwire::error e = refwire::deserialize_view<refwire::binary>(bytes, req)) log(e.message());
///   route(req.path);                                  // no copy of the path
template <format F, class T>
[[nodiscard]] error deserialize_view(std::span<const std::byte> in, T& out, const decode_options& options = {}) {
  if constexpr (detail::check_view_decodable<T, F>()) {
    return detail::decode_views<F>(in, out, options);
  } else {
    return {};
  }
}

/// Text-input form of the non-throwing deserialize_view (JSON text kept in a
/// std::string, a string literal, a memory-mapped file): the views point into the text.
///
///   std::string text = R"({"path":"/index.html"})";
///   request req;
///   refwire::error e = refwire::deserialize_view<refwire::json>(text, req);   // req.path views text
template <format F, class T>
[[nodiscard]] error deserialize_view(std::string_view in, T& out, const decode_options& options = {}) {
  return deserialize_view<F>(detail::as_bytes(in), out, options);
}

/// Decodes a T whose views point into in (see the non-throwing form); throws
/// refwire::decode_error.
///
///   request req = refwire::deserialize_view<request>(bytes);                  // binary
///   request r2 = refwire::deserialize_view<request, refwire::protobuf>(bytes);
template <class T, format F = binary>
  requires(!format<T>)
[[nodiscard]] T deserialize_view(std::span<const std::byte> in, const decode_options& options = {}) {
  static_assert(std::is_default_constructible_v<T>,
                "refwire: deserialize_view<T>: T must be default constructible (it is decoded into a "
                "value-initialized T); add a default constructor, or decode into an existing object with "
                "deserialize_view<Format>(bytes, value)");
  if constexpr (!detail::check_view_decodable<T, F>() || !std::is_default_constructible_v<T>) {
    std::abort();  // not reached: the check failed to compile
  } else {
    T out{};
    if (error e = detail::decode_views<F>(in, out, options)) throw decode_error(std::move(e));
    return out;
  }
}

/// Text-input form of the throwing deserialize_view.
///
///   request req = refwire::deserialize_view<request, refwire::json>(text);   // text must outlive req
template <class T, format F = binary>
  requires(!format<T>)
[[nodiscard]] T deserialize_view(std::string_view in, const decode_options& options = {}) {
  return deserialize_view<T, F>(detail::as_bytes(in), options);
}

/// deserialize_view of a temporary std::vector<std::byte> or std::string:
/// one readable error (the views would dangle once the statement ends).
///
///   auto bytes = read_message();  request req = refwire::deserialize_view<request>(bytes);  // not (read_message())
template <format F, class T, class B>
  requires detail::temporary_buffer<B>
error deserialize_view(B&& /*in*/, T& /*out*/, const decode_options& /*options*/ = {}) {
  detail::view_of_temporary<B>();
  return {};
}

/// The throwing form of the overload above.
template <class T, format F = binary, class B>
  requires(!format<T> && detail::temporary_buffer<B>)
T deserialize_view(B&& /*in*/, const decode_options& /*options*/ = {}) {
  detail::view_of_temporary<B>();
  std::abort();
}

namespace detail {

/// The one error of a deserialize whose template arguments are in the wrong order.
template <class T>
constexpr void deserialize_in_wrong_order() {
  static_assert(dependent_false<T>,
                "refwire: deserialize: the throwing form is deserialize<T, Format>(bytes), the non-throwing form is "
                "deserialize<Format>(bytes, value)");
}

/// The same for deserialize_prefix.
template <class T>
constexpr void deserialize_prefix_in_wrong_order() {
  static_assert(dependent_false<T>,
                "refwire: deserialize_prefix: the form is deserialize_prefix<Format>(bytes, value, consumed)");
}

/// The same for deserialize_view.
template <class T>
constexpr void deserialize_view_in_wrong_order() {
  static_assert(dependent_false<T>,
                "refwire: deserialize_view: the throwing form is deserialize_view<T, Format>(bytes), the "
                "non-throwing form is deserialize_view<Format>(bytes, value)");
}

}  // namespace detail

/// deserialize_view with its template arguments in the wrong order (or
/// missing): one readable error instead of a list of candidates.
///
///   request r = refwire::deserialize_view<request, refwire::json>(text);     // not <refwire::json, request>
template <class F, class T, class In>
  requires(format<F> && !format<T>)
T deserialize_view(const In& /*in*/, const decode_options& /*options*/ = {}) {
  detail::deserialize_view_in_wrong_order<F>();
  std::abort();
}

/// The throwing form given only a format (deserialize_view<Format>(bytes)): one readable error.
template <class F, class In>
  requires(format<F>)
void deserialize_view(const In& /*in*/, const decode_options& /*options*/ = {}) {
  detail::deserialize_view_in_wrong_order<F>();
}

/// The non-throwing form called with T first (deserialize_view<T, Format>(bytes, value)
/// or deserialize_view<T>(bytes, value)): one readable error.
template <class T, class F, class In, class U>
  requires(!format<T> && format<F> && !std::is_same_v<std::remove_cv_t<U>, decode_options>)
error deserialize_view(const In& /*in*/, U& /*out*/, const decode_options& /*options*/ = {}) {
  detail::deserialize_view_in_wrong_order<T>();
  return {};
}

/// The overload above without a format argument (deserialize_view<T>(bytes, value)).
template <class T, class In, class U>
  requires(!format<T> && !std::is_same_v<std::remove_cv_t<U>, decode_options>)
error deserialize_view(const In& /*in*/, U& /*out*/, const decode_options& /*options*/ = {}) {
  detail::deserialize_view_in_wrong_order<T>();
  return {};
}

/// deserialize with its template arguments in the wrong order: one readable
/// error instead of a list of candidates. The throwing form is
/// deserialize<T, Format>(bytes), the non-throwing one deserialize<Format>(bytes, value).
///
///   point p = refwire::deserialize<point, refwire::protobuf>(bytes);       // not <refwire::protobuf, point>
template <class F, class T, class In>
  requires(format<F> && !format<T>)
T deserialize(const In& /*in*/, const decode_options& /*options*/ = {}) {
  detail::deserialize_in_wrong_order<F>();
  std::abort();
}

/// The throwing form given only a format (deserialize<Format>(bytes)): one readable error.
///
///   point p = refwire::deserialize<point, refwire::json>(bytes);          // not deserialize<refwire::json>(bytes)
template <class F, class In>
  requires(format<F>)
void deserialize(const In& /*in*/, const decode_options& /*options*/ = {}) {
  detail::deserialize_in_wrong_order<F>();
}

/// The non-throwing form called with T first (deserialize<T, Format>(bytes,
/// value) or deserialize<T>(bytes, value)): one readable error.
///
///   refwire::error e = refwire::deserialize<refwire::protobuf>(bytes, p);  // not <point, refwire::protobuf>
template <class T, class F, class In, class U>
  requires(!format<T> && format<F> && !std::is_same_v<std::remove_cv_t<U>, decode_options>)
error deserialize(const In& /*in*/, U& /*out*/, const decode_options& /*options*/ = {}) {
  detail::deserialize_in_wrong_order<T>();
  return {};
}

/// The overload above without a format argument (deserialize<T>(bytes, value)).
template <class T, class In, class U>
  requires(!format<T> && !std::is_same_v<std::remove_cv_t<U>, decode_options>)
error deserialize(const In& /*in*/, U& /*out*/, const decode_options& /*options*/ = {}) {
  detail::deserialize_in_wrong_order<T>();
  return {};
}

/// deserialize_prefix with T first (deserialize_prefix<T>(...) or
/// deserialize_prefix<T, Format>(...)): one readable error. The form is
/// deserialize_prefix<Format>(bytes, value, consumed).
///
///   refwire::error e = refwire::deserialize_prefix<refwire::binary>(in, v, used);
template <class T, class In, class U>
  requires(!format<T>)
error deserialize_prefix(const In& /*in*/, U& /*out*/, std::size_t& /*consumed*/,
                         const decode_options& /*options*/ = {}) {
  detail::deserialize_prefix_in_wrong_order<T>();
  return {};
}

/// The overload above with the format second (deserialize_prefix<T, Format>(...)).
template <class T, class F, class In, class U>
  requires(!format<T> && format<F>)
error deserialize_prefix(const In& /*in*/, U& /*out*/, std::size_t& /*consumed*/,
                         const decode_options& /*options*/ = {}) {
  detail::deserialize_prefix_in_wrong_order<T>();
  return {};
}

}  // namespace refwire
