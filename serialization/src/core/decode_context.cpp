// Failure recording for every format's decoder (detail/core/decode_context.hpp):
// one wording per limit, the path segments, the error a decode returns.
#include <cstring>
#include <refwire/serialization/detail/core/decode_context.hpp>
#include <refwire/serialization/detail/core/path.hpp>

namespace refwire::detail {

bool record_failure(decode_context& c, errc code, std::size_t offset, std::string reason) {
  if (c.failed) return false;  // the first failure wins
  c.failed = std::make_unique<failure>();
  c.failed->code = code;
  c.failed->offset = offset;
  c.failed->reason = std::move(reason);
  return false;
}

bool fail_truncated_at(decode_context& c, std::size_t offset, std::string_view what, std::uint64_t need,
                       std::size_t left) {
  return record_failure(c, errc::truncated,
                        offset,
                        "truncated " + std::string(what) + ", needs " + std::to_string(need) + " bytes, " +
                            std::to_string(left) + " left");
}

bool fail_count_at(decode_context& c, std::size_t offset, std::string_view what, std::uint64_t count,
                   std::size_t min_each, std::size_t left) {
  return record_failure(c, errc::truncated, offset,
                        "truncated " + std::string(what) + ", " + std::to_string(count) +
                            " elements need at least " + std::to_string(min_each) +
                            (min_each == 1 ? " byte each, " : " bytes each, ") + std::to_string(left) + " left");
}

bool fail_elements_at(decode_context& c, std::size_t offset, std::uint64_t count) {
  return record_failure(c, errc::element_limit, offset,
                        std::to_string(count) + (count == 1 ? " element exceeds" : " elements exceed") +
                            " the element limit (" + std::to_string(c.elements_left) +
                            " left of decode_options::max_elements)");
}

bool fail_alloc_at(decode_context& c, std::size_t offset, std::uint64_t bytes) {
  return record_failure(c, errc::allocation_limit, offset,
                        "allocating " + std::to_string(bytes) + " bytes exceeds the allocation limit (" +
                            std::to_string(c.alloc_left) + " left of decode_options::max_alloc_bytes)");
}

bool fail_depth_at(decode_context& c, std::size_t offset) {
  return record_failure(c, errc::depth_limit, offset, "nesting exceeds decode_options::max_depth");
}

bool fail_varint_at(decode_context& c, std::size_t offset, wire::varint_read got, std::size_t left) {
  switch (got.status) {
    case wire::varint_status::truncated: return fail_truncated_at(c, offset, "varint", got.length, left);
    case wire::varint_status::not_minimal:
      return record_failure(c, errc::invalid_varint, offset, "varint is not minimally encoded");
    case wire::varint_status::overflow:
    case wire::varint_status::ok: break;
  }
  return record_failure(c, errc::invalid_varint, offset, "varint exceeds 64 bits");
}

bool fail_duration_at(decode_context& c, std::size_t offset, std::int64_t ns, wire::ns_conversion why,
                      std::int64_t tick_ns) {
  if (why == wire::ns_conversion::not_whole) {
    return record_failure(c, errc::invalid_value, offset,
                          std::to_string(ns) + " ns is not a whole number of the field's duration unit (" +
                              std::to_string(tick_ns) + " ns)");
  }
  return record_failure(c, errc::invalid_value, offset,
                        std::to_string(ns) + " ns does not fit the field's duration type");
}

void push_field(decode_context& c, std::string_view name, std::size_t index) {
  if (c.failed) c.failed->path.push_back(field_segment(name, index));
}
void push_index(decode_context& c, std::size_t index) {
  if (c.failed) c.failed->path.push_back(index_segment(index));
}
void push_key(decode_context& c, std::string_view key) {
  if (c.failed) c.failed->path.push_back(key_segment(key));
}
void push_key(decode_context& c, long long key) {
  if (c.failed) c.failed->path.push_back(key_segment(key));
}
void push_key(decode_context& c, unsigned long long key) {
  if (c.failed) c.failed->path.push_back(key_segment(key));
}

refwire::error make_error(decode_context& c) {
  if (!c.failed) return refwire::error(errc::invalid_value, 0, "$", "decode failed");
  return refwire::error(c.failed->code, c.failed->offset, join_path(c.failed->path), std::move(c.failed->reason));
}

// ------------------------------------------------------------ byte_reader

bool fail(byte_reader& r, errc code, std::string reason) {
  return record_failure(r, code, r.offset(), std::move(reason));
}

bool fail_truncated(byte_reader& r, std::string_view what, std::uint64_t need) {
  return fail_truncated_at(r, r.offset(), what, need, r.left());
}

bool fail_count(byte_reader& r, std::string_view what, std::uint64_t count, std::size_t min_each) {
  return fail_count_at(r, r.offset(), what, count, min_each, r.left());
}

bool fail_elements(byte_reader& r, std::uint64_t count) { return fail_elements_at(r, r.offset(), count); }
bool fail_alloc(byte_reader& r, std::uint64_t bytes) { return fail_alloc_at(r, r.offset(), bytes); }
bool fail_depth(byte_reader& r) { return fail_depth_at(r, r.offset()); }

bool blob_source::accept(byte_reader& /*r*/, std::size_t /*n*/) { return true; }

bool blob_source::fill(byte_reader& r, std::byte* dest, std::size_t n) {
  used_ = true;
  const std::size_t have = r.left();
  if (have > 0) std::memcpy(dest, r.cur, have);
  std::string why;
  if (!read_exact(dest + have, n - have, why)) {
    r.cur = r.end;
    return fail(r, errc::io_error, "the rest of the input could not be read: " + why);
  }
  return advance(r, n);
}

bool blob_source::fill_vector(byte_reader& r, std::vector<std::byte>& v, std::size_t n) {
  v.clear();
  v.resize(n);
  return fill(r, v.data(), n);
}

bool blob_source::advance(byte_reader& r, std::size_t n) {
  used_ = true;
  const std::size_t consumed = r.offset() + n;
  pending_ -= n - r.left();
  const std::byte* rest = r.end;
  if (pending_ > 0) {
    std::byte* buffer = rest_buffer(pending_);
    std::string why;
    if (!read_exact(buffer, pending_, why)) {
      r.cur = r.end;
      return fail(r, errc::io_error, "the rest of the input could not be read: " + why);
    }
    rest = buffer;
  }
  r.begin = rest;
  r.cur = rest;
  r.end = rest + pending_;
  r.base = consumed;
  pending_ = 0;
  return true;
}

template <wire::varint_rules Rules>
bool read_varint_slow(byte_reader& r, std::uint64_t& v) {
  const wire::varint_read got = wire::read_varint<Rules>(r.cur, r.end, v);
  if (got.status == wire::varint_status::ok) [[likely]] {
    r.cur += got.length;
    return true;
  }
  return fail_varint_at(r, r.offset(), got, r.left());
}

template bool read_varint_slow<wire::varint_rules::strict>(byte_reader&, std::uint64_t&);
template bool read_varint_slow<wire::varint_rules::lenient>(byte_reader&, std::uint64_t&);

}  // namespace refwire::detail
