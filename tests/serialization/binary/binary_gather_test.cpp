// The binary format's two halves of large payloads without copies (what the
// RPC layer builds on): encode_gather leaves large blobs in the value's own
// memory, decode_streaming reads them from a source straight into the
// destination's storage. Both must mean exactly the bytes of encode / decode.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace gather {

struct doc {
  std::int32_t id = 0;
  std::vector<std::byte> body;
  std::string title;
  std::vector<double> samples;
  std::optional<std::string> note;
  friend bool operator==(const doc&, const doc&) = default;
};
BOOST_DESCRIBE_STRUCT(doc, (), (id, body, title, samples, note))

/// A type whose wire value is a temporary made on encode (to_wire returns by value).
struct packed {
  std::size_t n = 0;
  friend bool operator==(const packed&, const packed&) = default;
};

}  // namespace gather

template <>
struct refwire::codec<gather::packed> {
  using wire = std::vector<std::byte>;
  static wire to_wire(const gather::packed& p) { return wire(p.n, std::byte{0x5a}); }
  static gather::packed from_wire(wire&& w) { return gather::packed{w.size()}; }
};

namespace {

using refwire::detail::bin::gather_list;
using gather::doc;

std::vector<std::byte> pattern(std::size_t n, std::uint8_t seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed) & 0xff);
  return v;
}

doc large_doc() {
  doc d;
  d.id = 42;
  d.body = pattern(300'000, 7);
  d.title = std::string(100'000, 't');
  d.samples.resize(20'000);
  for (std::size_t i = 0; i < d.samples.size(); ++i) d.samples[i] = static_cast<double>(i) * 0.5;
  d.note = "small";
  return d;
}

/// The encoding gather describes: out with each blob put back at its place.
std::vector<std::byte> reassemble(const std::vector<std::byte>& out, const gather_list& g) {
  std::vector<std::byte> all;
  std::size_t from = 0;
  for (std::size_t k = 0; k < g.count; ++k) {
    all.insert(all.end(), out.begin() + static_cast<std::ptrdiff_t>(from),
               out.begin() + static_cast<std::ptrdiff_t>(g.blobs[k].at));
    all.insert(all.end(), g.blobs[k].data, g.blobs[k].data + g.blobs[k].size);
    from = g.blobs[k].at;
  }
  all.insert(all.end(), out.begin() + static_cast<std::ptrdiff_t>(from), out.end());
  return all;
}

TEST(binary_gather, leaves_large_blobs_in_the_value_and_means_the_same_bytes) {
  const doc d = large_doc();
  std::vector<std::byte> out;
  gather_list g;
  refwire::detail::bin::encode_gather(d, out, g);
  ASSERT_EQ(g.count, 3u);  // body, title, samples; the note is small and copied
  EXPECT_EQ(g.blobs[0].data, d.body.data());
  EXPECT_EQ(g.blobs[0].size, d.body.size());
  EXPECT_EQ(static_cast<const void*>(g.blobs[1].data), static_cast<const void*>(d.title.data()));
  EXPECT_EQ(g.blobs[1].size, d.title.size());
  EXPECT_EQ(static_cast<const void*>(g.blobs[2].data), static_cast<const void*>(d.samples.data()));
  EXPECT_EQ(g.blobs[2].size, d.samples.size() * sizeof(double));
  EXPECT_EQ(g.bytes, d.body.size() + d.title.size() + d.samples.size() * sizeof(double));
  EXPECT_LT(out.size(), 64u);  // the small fields and the length prefixes only
  EXPECT_EQ(reassemble(out, g), refwire::serialize(d));
}

TEST(binary_gather, small_values_and_temporaries_are_copied) {
  std::vector<std::byte> out;
  gather_list g;
  const std::vector<std::byte> small = pattern(gather_list::min_blob - 1, 1);
  refwire::detail::bin::encode_gather(small, out, g);
  EXPECT_EQ(g.count, 0u);
  EXPECT_EQ(out, refwire::serialize(small));

  // a codec's wire value is a temporary: never left for later
  const gather::packed p{200'000};
  out.clear();
  refwire::detail::bin::encode_gather(p, out, g);
  EXPECT_EQ(g.count, 0u);
  EXPECT_EQ(out, refwire::serialize(p));
}

TEST(binary_gather, at_most_max_blobs_then_copies) {
  std::vector<std::vector<std::byte>> many(gather_list::max_blobs + 3, pattern(gather_list::min_blob, 3));
  std::vector<std::byte> out;
  gather_list g;
  refwire::detail::bin::encode_gather(many, out, g);
  EXPECT_EQ(g.count, gather_list::max_blobs);
  EXPECT_EQ(out.size() + g.bytes, refwire::serialize(many).size());
  EXPECT_EQ(reassemble(out, g), refwire::serialize(many));
  // a second encode starts a fresh list
  out.clear();
  refwire::detail::bin::encode_gather(std::int32_t{5}, out, g);
  EXPECT_EQ(g.count, 0u);
  EXPECT_EQ(g.bytes, 0u);
}

/// A source over the bytes of an input past the part given to the decoder:
/// counts what it hands out, can fail at a given read.
class vector_source : public refwire::detail::blob_source {
 public:
  vector_source(std::span<const std::byte> rest, std::size_t fail_after = SIZE_MAX)
      : blob_source(rest.size()), rest_(rest), fail_after_(fail_after) {}
  std::size_t reads = 0;
  std::size_t bytes_read = 0;
  std::byte* last_dest = nullptr;
  std::vector<std::byte> buffer;

 protected:
  bool read_exact(std::byte* dest, std::size_t n, std::string& why) override {
    if (reads++ >= fail_after_) {
      why = "the peer closed";
      return false;
    }
    std::memcpy(dest, rest_.data() + at_, n);
    at_ += n;
    bytes_read += n;
    last_dest = dest;
    return true;
  }
  std::byte* rest_buffer(std::size_t n) override {
    buffer.resize(n);
    return buffer.data();
  }

 private:
  std::span<const std::byte> rest_;
  std::size_t at_ = 0;
  std::size_t fail_after_;
};

TEST(binary_streaming, decodes_what_decode_does_wherever_the_input_is_cut) {
  const doc d = large_doc();
  const std::vector<std::byte> bytes = refwire::serialize(d);
  const std::span<const std::byte> all(bytes);
  // cut points: inside the small fields before the first blob and in each blob
  for (std::size_t cut : {std::size_t{12}, std::size_t{100}, std::size_t{150'000}, std::size_t{350'000},
                          std::size_t{450'000}}) {
    SCOPED_TRACE(cut);
    vector_source src(all.subspan(cut));
    doc out;
    const refwire::error e =
        refwire::detail::bin::decode_streaming(all.first(cut), out, refwire::decode_options{}, src);
    ASSERT_FALSE(e) << e.message();
    EXPECT_TRUE(src.used());
    EXPECT_EQ(src.pending(), 0u);
    EXPECT_EQ(out, d);
    EXPECT_EQ(src.bytes_read, bytes.size() - cut);
  }
}

TEST(binary_streaming, the_first_blob_past_the_range_is_read_into_its_storage) {
  const std::vector<std::byte> blob = pattern(1'000'000, 9);
  const std::vector<std::byte> bytes = refwire::serialize(std::make_tuple(std::int32_t{7}, blob));
  const std::span<const std::byte> all(bytes);
  const std::size_t cut = 4096;
  vector_source src(all.subspan(cut));
  std::tuple<std::int32_t, std::vector<std::byte>> out;
  ASSERT_FALSE(refwire::detail::bin::decode_streaming(all.first(cut), out, refwire::decode_options{}, src));
  EXPECT_EQ(std::get<0>(out), 7);
  EXPECT_EQ(std::get<1>(out), blob);
  // one read, straight into the vector's storage past the bytes the range had
  EXPECT_EQ(src.reads, 1u);
  EXPECT_EQ(src.last_dest, std::get<1>(out).data() + (cut - 4 - 3));  // after the i32 and the 3-byte varint
}

TEST(binary_streaming, a_decode_that_stops_before_any_blob_reads_nothing) {
  const doc d = large_doc();
  const std::vector<std::byte> bytes = refwire::serialize(d);
  const std::span<const std::byte> all(bytes);
  // the range ends inside the 4-byte id: truncated, the source untouched
  vector_source src(all.subspan(2));
  doc out;
  const refwire::error e = refwire::detail::bin::decode_streaming(all.first(2), out, refwire::decode_options{}, src);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), refwire::errc::truncated);
  EXPECT_FALSE(src.used());
  EXPECT_EQ(src.reads, 0u);
}

TEST(binary_streaming, trailing_bytes_count_what_the_source_still_holds) {
  std::vector<std::byte> bytes = refwire::serialize(pattern(200'000, 4));
  bytes.resize(bytes.size() + 5);
  const std::span<const std::byte> all(bytes);
  vector_source src(all.subspan(10));
  std::vector<std::byte> out;
  const refwire::error e = refwire::detail::bin::decode_streaming(all.first(10), out, refwire::decode_options{}, src);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), refwire::errc::trailing_bytes);
  EXPECT_EQ(e.message(), "$: 5 trailing bytes after the value, at offset 200003");
  EXPECT_EQ(e.offset(), 200'003u);
}

TEST(binary_streaming, a_source_that_fails_is_io_error_at_the_blob) {
  const std::vector<std::byte> bytes = refwire::serialize(std::make_tuple(std::string(300'000, 'x'), std::int32_t{1}));
  const std::span<const std::byte> all(bytes);
  vector_source src(all.subspan(100), 0);
  std::tuple<std::string, std::int32_t> out;
  const refwire::error e = refwire::detail::bin::decode_streaming(all.first(100), out, refwire::decode_options{}, src);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), refwire::errc::io_error);
  EXPECT_NE(e.message().find("the rest of the input could not be read: the peer closed"), std::string::npos)
      << e.message();
  EXPECT_TRUE(src.used());
}

TEST(binary_streaming, limits_apply_to_streamed_values) {
  const std::vector<std::byte> bytes = refwire::serialize(pattern(500'000, 2));
  const std::span<const std::byte> all(bytes);
  vector_source src(all.subspan(64));
  refwire::decode_options o;
  o.max_alloc_bytes = 100'000;
  std::vector<std::byte> out;
  const refwire::error e = refwire::detail::bin::decode_streaming(all.first(64), out, o, src);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), refwire::errc::allocation_limit);
  EXPECT_FALSE(src.used());

  // a length past the whole input is still truncated, nothing read
  std::vector<std::byte> lying = refwire::serialize(pattern(500'000, 2));
  lying.resize(1000);
  vector_source short_src(std::span<const std::byte>(lying).subspan(64));
  const refwire::error t = refwire::detail::bin::decode_streaming(std::span<const std::byte>(lying).first(64), out,
                                                                   refwire::decode_options{}, short_src);
  ASSERT_TRUE(t);
  EXPECT_EQ(t.code(), refwire::errc::truncated);
  EXPECT_FALSE(short_src.used());
}

// A failure reported where a value began, after that value was streamed
// (the range moved on): the offset is the whole input's (found by fuzz_binary:
// a path that is not UTF-8 was reported at offset 274877580964).
TEST(binary_streaming, a_failure_after_a_streamed_value_is_reported_where_it_began) {
  std::string bad(100'000, 'p');
  bad[50'000] = static_cast<char>(0xff);
  const std::vector<std::byte> bytes = refwire::serialize(std::make_tuple(std::int32_t{1}, bad));
  std::vector<std::byte> as_path = bytes;  // the same bytes read as a path
  const std::span<const std::byte> all(as_path);
  std::tuple<std::int32_t, std::filesystem::path> whole;
  const refwire::error full = refwire::deserialize<refwire::binary>(all, whole);
  ASSERT_TRUE(full);
  vector_source src(all.subspan(1000));
  std::tuple<std::int32_t, std::filesystem::path> out;
  const refwire::error e = refwire::detail::bin::decode_streaming(all.first(1000), out, refwire::decode_options{}, src);
  ASSERT_TRUE(e);
  EXPECT_TRUE(src.used());
  EXPECT_EQ(e.message(), full.message());
  EXPECT_EQ(e.offset(), 4u);

  // a duplicate set element that was streamed
  const std::string key(80'000, 'k');
  std::vector<std::string> twice = {key, key};
  const std::vector<std::byte> set_bytes = refwire::serialize(twice);  // a vector and a set share the layout
  const std::span<const std::byte> set_all(set_bytes);
  std::set<std::string> whole_set;
  const refwire::error full_set = refwire::deserialize<refwire::binary>(set_all, whole_set);
  ASSERT_TRUE(full_set);
  vector_source set_src(set_all.subspan(100'000));
  std::set<std::string> out_set;
  const refwire::error es =
      refwire::detail::bin::decode_streaming(set_all.first(100'000), out_set, refwire::decode_options{}, set_src);
  ASSERT_TRUE(es);
  EXPECT_TRUE(set_src.used());
  EXPECT_EQ(es.message(), full_set.message());
}

}  // namespace
