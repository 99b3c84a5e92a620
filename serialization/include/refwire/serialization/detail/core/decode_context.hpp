#pragma once
// What every format's decoder shares: the budgets of decode_options, the
// depth guard, and the failure record. A format's reader derives from
// decode_context (JSON's cursor) or from byte_reader (binary and protobuf,
// which walk a byte range). The first failure recorded wins: later records
// are ignored, so an outer level that fails because an inner one did can
// never replace the inner, more precise, reason. Paths are pushed while the
// failure unwinds (innermost first) and joined by make_error.
//
//   if (n > r.left()) return fail_truncated(r, "string", n);   // records, returns false
//   if (!charge(r, n)) return false;                            // allocation budget
//   depth_scope scope(r);                                       // one level deeper
//   if (!read(r, v.name)) { push_field(r, "name", 2); return false; }

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <refwire/serialization/detail/core/path.hpp>
#include <refwire/serialization/detail/wire/time.hpp>
#include <refwire/serialization/detail/wire/varint.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/options.hpp>

namespace refwire::detail {

/// What a failed decode recorded; allocated only when a decode fails.
struct failure {
  errc code = errc::ok;
  std::size_t offset = 0;
  std::string reason;
  std::vector<std::string> path;  // innermost segment first
};

/// The budgets and the failure record of one decode.
struct decode_context {
  std::uint32_t depth_left;
  std::uint64_t elements_left;
  std::uint64_t alloc_left;
  std::unique_ptr<failure> failed;

  explicit decode_context(const decode_options& o) noexcept
      : depth_left(o.max_depth), elements_left(o.max_elements), alloc_left(o.max_alloc_bytes) {}
};

// Recording (src/core/decode_context.cpp). Each returns false. The wordings
// live here once, so every format says the same thing about the same limit.

/// Records a failure unless one is recorded already (the first wins).
bool record_failure(decode_context& c, errc code, std::size_t offset, std::string reason);
/// truncated: "truncated <what>, needs <need> bytes, <left> left".
bool fail_truncated_at(decode_context& c, std::size_t offset, std::string_view what, std::uint64_t need,
                       std::size_t left);
/// truncated: "truncated <what>, <count> elements need at least <min_each> byte(s) each, <left> left".
bool fail_count_at(decode_context& c, std::size_t offset, std::string_view what, std::uint64_t count,
                   std::size_t min_each, std::size_t left);
/// element_limit: "<count> element(s) exceed(s) the element limit (<left> left of decode_options::max_elements)".
bool fail_elements_at(decode_context& c, std::size_t offset, std::uint64_t count);
/// allocation_limit: "allocating <bytes> bytes exceeds the allocation limit (<left> left of decode_options::max_alloc_bytes)".
bool fail_alloc_at(decode_context& c, std::size_t offset, std::uint64_t bytes);
/// depth_limit: "nesting exceeds decode_options::max_depth".
bool fail_depth_at(decode_context& c, std::size_t offset);
/// A varint that read_varint rejected: truncated ("truncated varint, needs N bytes, L left"),
/// or invalid_varint ("varint exceeds 64 bits", "varint is not minimally encoded").
bool fail_varint_at(decode_context& c, std::size_t offset, wire::varint_read got, std::size_t left);
/// invalid_value: a count of nanoseconds that from_nanoseconds could not convert
/// to a duration whose tick is tick_ns nanoseconds.
bool fail_duration_at(decode_context& c, std::size_t offset, std::int64_t ns, wire::ns_conversion why,
                      std::int64_t tick_ns);

void push_field(decode_context& c, std::string_view name, std::size_t index);
void push_index(decode_context& c, std::size_t index);
void push_key(decode_context& c, std::string_view key);
void push_key(decode_context& c, long long key);
void push_key(decode_context& c, unsigned long long key);

/// The recorded failure as a refwire::error (the path joined); a context
/// with no failure recorded gives invalid_value "decode failed" at offset 0.
refwire::error make_error(decode_context& c);

/// One nesting level: taken after checking depth_left != 0.
struct depth_scope {
  decode_context& c;
  explicit depth_scope(decode_context& ctx) noexcept : c(ctx) { --c.depth_left; }
  ~depth_scope() { ++c.depth_left; }
  depth_scope(const depth_scope&) = delete;
  depth_scope& operator=(const depth_scope&) = delete;
};

/// The cursor of a byte_reader: the input range and the position in it.
struct byte_cursor {
  const std::byte* begin;
  const std::byte* cur;
  const std::byte* end;
};

struct byte_reader;

/// Where the rest of an input comes from when the reader holds only its
/// beginning (the binary decoder of a large RPC frame still arriving): a
/// large run of bytes that goes past the reader's range (a blob, a string, a
/// vector of arithmetic values) is read straight into the destination's
/// storage, then the rest of the input becomes the reader's range.
class blob_source {
 public:
  virtual ~blob_source() = default;
  blob_source(const blob_source&) = delete;
  blob_source& operator=(const blob_source&) = delete;

  /// The input's bytes not yet in the reader's range.
  [[nodiscard]] std::size_t pending() const noexcept { return pending_; }
  /// Whether a run has been taken from the source (the input is then consumed
  /// past the range the decode started with).
  [[nodiscard]] bool used() const noexcept { return used_; }

  /// Called when a run of n bytes that starts at r.cur and goes past the
  /// range is about to be read, before its destination is sized: false stops
  /// the decode (the source records the failure in r). By default true.
  virtual bool accept(byte_reader& r, std::size_t n);
  /// Fills dest with the n-byte run at r.cur: the reader's r.left() bytes,
  /// then n - r.left() from the source; then makes the rest of the input
  /// (pending() after that) the reader's range (r.base moves on, so offsets
  /// stay those of the whole input). False, with the failure recorded in r,
  /// when the source fails. Requires r.left() < n <= r.left() + pending().
  bool fill(byte_reader& r, std::byte* dest, std::size_t n);
  /// fill for a std::vector<std::byte> destination: sized to n and filled by
  /// default; a source that holds the run in a vector already may hand it over.
  virtual bool fill_vector(byte_reader& r, std::vector<std::byte>& v, std::size_t n);

 protected:
  explicit blob_source(std::size_t pending) noexcept : pending_(pending) {}
  /// Reads exactly n bytes into dest; false (why set) on failure.
  virtual bool read_exact(std::byte* dest, std::size_t n, std::string& why) = 0;
  /// A buffer of n bytes for the rest of the input (read into it next).
  virtual std::byte* rest_buffer(std::size_t n) = 0;
  /// After the n-byte run at r.cur has been taken (its r.left() bytes in the
  /// range, the others from the source): reads the rest of the input and
  /// makes it the reader's range. False (recorded) when reading fails.
  bool advance(byte_reader& r, std::size_t n);

 private:
  std::size_t pending_;
  bool used_ = false;
};

/// A reader over a byte range (binary, protobuf): the cursor, the budgets and
/// the failure record; failures are recorded at the cursor. The cursor comes
/// first in the object (the hot loads are at small offsets, and the layout is
/// the one the decoders were tuned with).
struct byte_reader : byte_cursor, decode_context {
  byte_reader(std::span<const std::byte> in, const decode_options& o) noexcept
      : byte_cursor{in.data(), in.data(), in.data() + in.size()}, decode_context(o) {}

  [[nodiscard]] std::size_t left() const noexcept { return static_cast<std::size_t>(end - cur); }
  [[nodiscard]] std::size_t offset() const noexcept { return base + static_cast<std::size_t>(cur - begin); }
  /// Whether a run of n bytes past the range can still come from the source.
  [[nodiscard]] bool can_stream(std::uint64_t n) const noexcept {
    return source != nullptr && n > left() && n - left() <= source->pending();
  }

  /// The binary decoder's source of the input past the range, or nullptr.
  blob_source* source = nullptr;
  /// The input's offset of begin (non-zero once a source has refilled the range).
  std::size_t base = 0;
};

// byte_reader failures at the cursor (out of line); each returns false.
bool fail(byte_reader& r, errc code, std::string reason);
bool fail_truncated(byte_reader& r, std::string_view what, std::uint64_t need);
bool fail_count(byte_reader& r, std::string_view what, std::uint64_t count, std::size_t min_each);
bool fail_elements(byte_reader& r, std::uint64_t count);
bool fail_alloc(byte_reader& r, std::uint64_t bytes);
bool fail_depth(byte_reader& r);
/// The bounded varint read at the cursor, every case: advances on success,
/// records the failure at the varint's first byte otherwise.
template <wire::varint_rules Rules>
bool read_varint_slow(byte_reader& r, std::uint64_t& v);
extern template bool read_varint_slow<wire::varint_rules::strict>(byte_reader&, std::uint64_t&);
extern template bool read_varint_slow<wire::varint_rules::lenient>(byte_reader&, std::uint64_t&);

/// Takes bytes from the allocation budget; false (recorded) past it.
template <class R>
inline bool charge(R& r, std::uint64_t bytes) {
  if (bytes > r.alloc_left) [[unlikely]] return fail_alloc(r, bytes);
  r.alloc_left -= bytes;
  return true;
}

/// Gives v, a std::optional, std::unique_ptr or std::shared_ptr whose value
/// the input holds, a value to decode into (an optional's or unique_ptr's is
/// kept when it has one; a shared_ptr always gets a new pointee, so that a
/// decode never writes into an object other pointers share; a new pointee is
/// charged to the allocation budget); false (recorded) past the budget. Every
/// format calls it after its own presence test and inside a depth_scope.
template <class R, class T>
inline bool emplace_present(R& r, T& v) {
  if constexpr (requires { v.emplace(); }) {
    if (!v) v.emplace();
  } else if constexpr (requires { v.use_count(); }) {
    using E = typename T::element_type;
    if (!charge(r, sizeof(E))) [[unlikely]] return false;
    v = std::make_shared<E>();
  } else {
    using E = typename T::element_type;
    if (!v) {
      if (!charge(r, sizeof(E))) [[unlikely]] return false;
      v = std::make_unique<E>();
    }
  }
  return true;
}

}  // namespace refwire::detail
