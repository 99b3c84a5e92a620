// Zero-copy views: std::string_view and std::span<const std::byte> fields
// decoded by refwire::deserialize_view point into the input (binary,
// protobuf; JSON strings without escapes), encode exactly as their owning
// twins (std::string, std::vector<std::byte>) in every format, keep the
// bounds, UTF-8 and limit checks of a copy, and allocate nothing themselves.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include "../common/alloc_watch.hpp"

namespace vw {

struct inner_own {
  std::string tag;
  std::vector<std::byte> data;
};
BOOST_DESCRIBE_STRUCT(inner_own, (), (tag, data))

struct inner_view {
  std::string_view tag;
  std::span<const std::byte> data;
};
BOOST_DESCRIBE_STRUCT(inner_view, (), (tag, data))

struct doc_own {
  int id = 0;
  std::string name;
  std::vector<std::string> words;
  std::optional<std::string> note;
  inner_own inner;
  std::vector<inner_own> items;
  std::map<std::string, int> counts;
  std::vector<std::byte> blob;
};
BOOST_DESCRIBE_STRUCT(doc_own, (), (id, name, words, note, inner, items, counts, blob))

struct doc_view {
  int id = 0;
  std::string_view name;
  std::vector<std::string_view> words;
  std::optional<std::string_view> note;
  inner_view inner;
  std::vector<inner_view> items;
  std::map<std::string_view, int> counts;
  std::span<const std::byte> blob;
};
BOOST_DESCRIBE_STRUCT(doc_view, (), (id, name, words, note, inner, items, counts, blob))

// JSON views strings only (bytes are base64 there).
struct text_own {
  int id = 0;
  std::string name;
  std::vector<std::string> words;
  std::optional<std::string> note;
  std::map<std::string, int> counts;
};
BOOST_DESCRIBE_STRUCT(text_own, (), (id, name, words, note, counts))

struct text_view {
  int id = 0;
  std::string_view name;
  std::vector<std::string_view> words;
  std::optional<std::string_view> note;
  std::map<std::string_view, int> counts;
};
BOOST_DESCRIBE_STRUCT(text_view, (), (id, name, words, note, counts))

struct flat_own {
  std::string a;
  std::string b;
  std::vector<std::byte> c;
};
BOOST_DESCRIBE_STRUCT(flat_own, (), (a, b, c))

struct flat_view {
  std::string_view a;
  std::string_view b;
  std::span<const std::byte> c;
};
BOOST_DESCRIBE_STRUCT(flat_view, (), (a, b, c))

struct name_own {
  std::string name;
};
BOOST_DESCRIBE_STRUCT(name_own, (), (name))

struct name_view {
  std::string_view name;
};
BOOST_DESCRIBE_STRUCT(name_view, (), (name))

struct bytes_view {
  std::span<const std::byte> data;
};
BOOST_DESCRIBE_STRUCT(bytes_view, (), (data))

struct list_view {
  std::vector<std::string_view> items;
};
BOOST_DESCRIBE_STRUCT(list_view, (), (items))

struct nest_view {
  std::optional<list_view> inner;
};
BOOST_DESCRIBE_STRUCT(nest_view, (), (inner))

std::vector<std::byte> bytes_of(std::string_view s) {
  std::vector<std::byte> out(s.size());
  std::memcpy(out.data(), s.data(), s.size());
  return out;
}

doc_own sample_doc() {
  doc_own d;
  d.id = 42;
  d.name = "a name longer than sixteen bytes";
  d.words = {"alpha", "", "gamma"};
  d.note = "nota bene";
  d.inner = {"inner", bytes_of("\x01\x02\x03")};
  d.items = {{"x", bytes_of("xy")}, {"", {}}};
  d.counts = {{"one", 1}, {"two", 2}};
  d.blob = bytes_of(std::string_view("\x00\xff\x10", 3));
  return d;
}

inner_view view_of(const inner_own& o) { return {o.tag, o.data}; }

doc_view view_of(const doc_own& o) {
  doc_view v;
  v.id = o.id;
  v.name = o.name;
  for (const auto& w : o.words) v.words.emplace_back(w);
  if (o.note) v.note = *o.note;
  v.inner = view_of(o.inner);
  for (const auto& i : o.items) v.items.push_back(view_of(i));
  for (const auto& [k, n] : o.counts) v.counts.emplace(k, n);
  v.blob = o.blob;
  return v;
}

text_own sample_text() {
  text_own t;
  t.id = 7;
  t.name = "caf\xc3\xa9 au lait";
  t.words = {"one", "two", ""};
  t.note = "n";
  t.counts = {{"k", 1}, {"long key here", 2}};
  return t;
}

text_view view_of(const text_own& o) {
  text_view v;
  v.id = o.id;
  v.name = o.name;
  for (const auto& w : o.words) v.words.emplace_back(w);
  if (o.note) v.note = *o.note;
  for (const auto& [k, n] : o.counts) v.counts.emplace(k, n);
  return v;
}

bool same_bytes(std::span<const std::byte> a, std::span<const std::byte> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

/// True when v lies inside in.
bool inside(std::span<const std::byte> in, const void* p, std::size_t n) {
  const auto* b = static_cast<const std::byte*>(p);
  return n == 0 || (b >= in.data() && b + n <= in.data() + in.size());
}

void expect_same(const inner_own& o, const inner_view& v, std::span<const std::byte> in) {
  EXPECT_EQ(v.tag, o.tag);
  EXPECT_TRUE(same_bytes(v.data, o.data));
  EXPECT_TRUE(inside(in, v.tag.data(), v.tag.size()));
  EXPECT_TRUE(inside(in, v.data.data(), v.data.size()));
}

void expect_same(const doc_own& o, const doc_view& v, std::span<const std::byte> in) {
  EXPECT_EQ(v.id, o.id);
  EXPECT_EQ(v.name, o.name);
  EXPECT_TRUE(inside(in, v.name.data(), v.name.size()));
  ASSERT_EQ(v.words.size(), o.words.size());
  for (std::size_t i = 0; i < o.words.size(); ++i) {
    EXPECT_EQ(v.words[i], o.words[i]);
    EXPECT_TRUE(inside(in, v.words[i].data(), v.words[i].size()));
  }
  ASSERT_TRUE(v.note.has_value());
  EXPECT_EQ(*v.note, *o.note);
  EXPECT_TRUE(inside(in, v.note->data(), v.note->size()));
  expect_same(o.inner, v.inner, in);
  ASSERT_EQ(v.items.size(), o.items.size());
  for (std::size_t i = 0; i < o.items.size(); ++i) expect_same(o.items[i], v.items[i], in);
  ASSERT_EQ(v.counts.size(), o.counts.size());
  for (const auto& [k, n] : v.counts) {
    EXPECT_EQ(o.counts.at(std::string(k)), n);
    EXPECT_TRUE(inside(in, k.data(), k.size()));
  }
  EXPECT_TRUE(same_bytes(v.blob, o.blob));
  EXPECT_TRUE(inside(in, v.blob.data(), v.blob.size()));
}

void expect_same(const text_own& o, const text_view& v, std::span<const std::byte> in) {
  EXPECT_EQ(v.id, o.id);
  EXPECT_EQ(v.name, o.name);
  EXPECT_TRUE(inside(in, v.name.data(), v.name.size()));
  ASSERT_EQ(v.words.size(), o.words.size());
  for (std::size_t i = 0; i < o.words.size(); ++i) {
    EXPECT_EQ(v.words[i], o.words[i]);
    EXPECT_TRUE(inside(in, v.words[i].data(), v.words[i].size()));
  }
  ASSERT_TRUE(v.note.has_value());
  EXPECT_EQ(*v.note, *o.note);
  ASSERT_EQ(v.counts.size(), o.counts.size());
  for (const auto& [k, n] : v.counts) {
    EXPECT_EQ(o.counts.at(std::string(k)), n);
    EXPECT_TRUE(inside(in, k.data(), k.size()));
  }
}

// ------------------------------------------------------------ shapes, names

TEST(Views, HaveTheShapeAndNameOfTheirOwningTwin) {
  using refwire::detail::shape;
  static_assert(refwire::detail::shape_of<std::string_view>() == shape::string);
  static_assert(refwire::detail::shape_of<std::span<const std::byte>>() == shape::blob);
  static_assert(refwire::serializable<doc_view>);
  EXPECT_EQ(refwire::type_name<doc_view>(), refwire::type_name<doc_own>());
  EXPECT_EQ(refwire::fingerprint<doc_view>(), refwire::fingerprint<doc_own>());
  // The same .proto, but for the message names.
  std::string schema = refwire::proto_schema<doc_view>("p");
  for (auto [from, to] : {std::pair<std::string, std::string>{"doc_view", "doc_own"}, {"inner_view", "inner_own"}}) {
    for (std::size_t at; (at = schema.find(from)) != std::string::npos;) schema.replace(at, from.size(), to);
  }
  EXPECT_EQ(schema, refwire::proto_schema<doc_own>("p"));
}

// ------------------------------------------------------------ golden-equal

TEST(Views, EncodeByteIdenticalToTheOwningTwinInEveryFormat) {
  const doc_own own = sample_doc();
  const doc_view view = view_of(own);
  EXPECT_EQ(refwire::serialize<refwire::binary>(view), refwire::serialize<refwire::binary>(own));
  EXPECT_EQ(refwire::serialize<refwire::protobuf>(view), refwire::serialize<refwire::protobuf>(own));
  EXPECT_EQ(refwire::serialize<refwire::json>(view), refwire::serialize<refwire::json>(own));
  EXPECT_EQ(refwire::to_json(view), refwire::to_json(own));
  EXPECT_EQ(refwire::to_json(view, {.pretty = true}), refwire::to_json(own, {.pretty = true}));
  // Through lz4 too (encoding copies, so compression is fine).
  const refwire::encode_options lz4{.compression = refwire::compression::lz4};
  EXPECT_EQ(refwire::serialize<refwire::binary>(view, lz4), refwire::serialize<refwire::binary>(own, lz4));
  // A snapshot of views is a snapshot of the owning twin.
  EXPECT_EQ(refwire::encode_snapshot(view), refwire::encode_snapshot(own));
  const doc_own back = refwire::decode_snapshot<doc_own>(refwire::encode_snapshot(view));
  EXPECT_EQ(back.name, own.name);
}

TEST(Views, EncodeFailuresAsTheOwningTwin) {
  const std::string bad = "a\xff";
  try {
    (void)refwire::serialize<refwire::protobuf>(name_view{bad});
    FAIL() << "no encode_error";
  } catch (const refwire::encode_error& e) {
    try {
      (void)refwire::serialize<refwire::protobuf>(name_own{bad});
      FAIL() << "no encode_error";
    } catch (const refwire::encode_error& o) {
      EXPECT_STREQ(e.what(), o.what());
    }
  }
  try {
    (void)refwire::to_json(name_view{bad});
    FAIL() << "no encode_error";
  } catch (const refwire::encode_error& e) {
    EXPECT_STREQ(e.what(), "$.name: string is not valid UTF-8 (byte 0xff at index 1)");
  }
}

// ------------------------------------------------------------ round trips

TEST(Views, BinaryRoundTripPointsIntoTheInput) {
  const doc_own own = sample_doc();
  const std::vector<std::byte> bytes = refwire::serialize<refwire::binary>(own);
  doc_view v;
  ASSERT_FALSE(refwire::deserialize_view<refwire::binary>(bytes, v));
  expect_same(own, v, bytes);
  const doc_view thrown = refwire::deserialize_view<doc_view>(bytes);
  expect_same(own, thrown, bytes);
}

TEST(Views, ProtobufRoundTripPointsIntoTheInput) {
  const doc_own own = sample_doc();
  const std::vector<std::byte> bytes = refwire::serialize<refwire::protobuf>(own);
  doc_view v;
  ASSERT_FALSE(refwire::deserialize_view<refwire::protobuf>(bytes, v));
  expect_same(own, v, bytes);
  const doc_view thrown = refwire::deserialize_view<doc_view, refwire::protobuf>(bytes);
  expect_same(own, thrown, bytes);
}

TEST(Views, JsonRoundTripPointsIntoTheInput) {
  const text_own own = sample_text();
  for (bool pretty : {false, true}) {
    const std::string text = refwire::to_json(own, {.pretty = pretty});
    const std::span<const std::byte> in = refwire::detail::as_bytes(text);
    text_view v;
    ASSERT_FALSE(refwire::deserialize_view<refwire::json>(text, v)) << text;
    expect_same(own, v, in);
    const text_view thrown = refwire::deserialize_view<text_view, refwire::json>(text);
    expect_same(own, thrown, in);
  }
}

TEST(Views, JsonViewsAfterABomAndAtTheRoot) {
  const std::string text = "\xEF\xBB\xBF{ \"name\" : \"plain\" , \"counts\" : { \"k\" :1} }";
  text_view v;
  ASSERT_FALSE(refwire::deserialize_view<refwire::json>(text, v));
  EXPECT_EQ(v.name, "plain");
  EXPECT_EQ(v.name.data(), text.data() + text.find("plain"));
  ASSERT_EQ(v.counts.size(), 1U);
  EXPECT_EQ(v.counts.begin()->first.data(), text.data() + text.find("k\""));

  const std::string root = "  \"root text\"";
  std::string_view s;
  ASSERT_FALSE(refwire::deserialize_view<refwire::json>(root, s));
  EXPECT_EQ(s, "root text");
  EXPECT_EQ(s.data(), root.data() + 3);
}

struct mixed_own {
  std::variant<std::int32_t, std::string> choice;
  std::array<std::string, 2> pair;
  std::tuple<std::string, std::int8_t> tup;
  std::unique_ptr<std::string> ptr;
  std::set<std::string> tags;
};
BOOST_DESCRIBE_STRUCT(mixed_own, (), (choice, pair, tup, ptr, tags))

struct mixed_view {
  std::variant<std::int32_t, std::string_view> choice;
  std::array<std::string_view, 2> pair;
  std::tuple<std::string_view, std::int8_t> tup;
  std::unique_ptr<std::string_view> ptr;
  std::set<std::string_view> tags;
};
BOOST_DESCRIBE_STRUCT(mixed_view, (), (choice, pair, tup, ptr, tags))

template <class F>
void mixed_round_trip() {
  mixed_own own;
  own.choice = std::string("chosen");
  own.pair = {"first", "second"};
  own.tup = {"tuple", std::int8_t{-3}};
  own.ptr = std::make_unique<std::string>("pointee");
  own.tags = {"x", "y"};
  const std::vector<std::byte> bytes = refwire::serialize<F>(own);
  mixed_view v;
  ASSERT_FALSE(refwire::deserialize_view<F>(bytes, v));
  ASSERT_EQ(v.choice.index(), 1U);
  EXPECT_EQ(std::get<1>(v.choice), "chosen");
  EXPECT_TRUE(inside(bytes, std::get<1>(v.choice).data(), 6));
  EXPECT_EQ(v.pair[1], "second");
  EXPECT_EQ(std::get<0>(v.tup), "tuple");
  EXPECT_EQ(std::get<1>(v.tup), -3);
  ASSERT_TRUE(v.ptr);
  EXPECT_EQ(*v.ptr, "pointee");
  EXPECT_TRUE(inside(bytes, v.ptr->data(), v.ptr->size()));
  EXPECT_EQ(v.tags, (std::set<std::string_view>{"x", "y"}));
  EXPECT_EQ(refwire::serialize<F>(v), bytes);
}

TEST(Views, InVariantsArraysTuplesPointersAndSets) {
  mixed_round_trip<refwire::binary>();
  mixed_round_trip<refwire::protobuf>();
  mixed_round_trip<refwire::json>();
}

TEST(Views, TypesWithoutViewsDecodeAsWithDeserialize) {
  const doc_own own = sample_doc();
  const std::vector<std::byte> bytes = refwire::serialize(own);
  doc_own back;
  ASSERT_FALSE(refwire::deserialize_view<refwire::binary>(bytes, back));
  EXPECT_EQ(back.name, own.name);
  EXPECT_EQ(back.blob, own.blob);
}

// ------------------------------------------------------------ hostile input

/// Decodes bytes as an Own with deserialize and as a View with
/// deserialize_view: the same error, code, offset, path and message.
template <class F, class Own, class View>
void expect_same_error(std::span<const std::byte> in, const std::string& what) {
  Own own;
  View view;
  const refwire::error a = refwire::deserialize<F>(in, own);
  const refwire::error b = refwire::deserialize_view<F>(in, view);
  ASSERT_EQ(static_cast<bool>(b), static_cast<bool>(a)) << what << ": " << (a ? a.message() : b.message());
  EXPECT_EQ(b.code(), a.code()) << what;
  EXPECT_EQ(b.offset(), a.offset()) << what;
  EXPECT_EQ(b.path(), a.path()) << what;
  EXPECT_EQ(b.message(), a.message()) << what;
}

TEST(Views, BinaryTruncationAtEveryByteAsACopy) {
  const std::vector<std::byte> bytes = refwire::serialize(sample_doc());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    expect_same_error<refwire::binary, doc_own, doc_view>(std::span(bytes).first(n), "cut at " + std::to_string(n));
  }
}

TEST(Views, BinaryTruncatedViewExactMessages) {
  const std::vector<std::byte> s = bytes_of("\x05" "ab");
  name_view v;
  refwire::error e = refwire::deserialize_view<refwire::binary>(s, v);
  EXPECT_EQ(e.code(), refwire::errc::truncated);
  EXPECT_EQ(e.message(), "$.name: truncated string, needs 5 bytes, 2 left, at offset 1");
  bytes_view b;
  e = refwire::deserialize_view<refwire::binary>(s, b);
  EXPECT_EQ(e.code(), refwire::errc::truncated);
  EXPECT_EQ(e.message(), "$.data: truncated bytes, needs 5 bytes, 2 left, at offset 1");
  EXPECT_TRUE(v.name.empty());  // reset on failure
  try {
    (void)refwire::deserialize_view<name_view>(s);
    FAIL() << "no decode_error";
  } catch (const refwire::decode_error& x) {
    EXPECT_STREQ(x.what(), "$.name: truncated string, needs 5 bytes, 2 left, at offset 1");
  }
}

TEST(Views, ProtobufTruncationAtEveryByteAsACopy) {
  const std::vector<std::byte> bytes = refwire::serialize<refwire::protobuf>(sample_doc());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    expect_same_error<refwire::protobuf, doc_own, doc_view>(std::span(bytes).first(n), "cut at " + std::to_string(n));
  }
}

TEST(Views, ProtobufStringViewsAreUtf8Validated) {
  // Field 1, length 3: 'a', then an overlong encoding of '/'.
  const std::vector<std::byte> bad = bytes_of("\x0a\x03" "a\xc0\xaf");
  expect_same_error<refwire::protobuf, name_own, name_view>(bad, "bad utf-8");
  name_view v;
  const refwire::error e = refwire::deserialize_view<refwire::protobuf>(bad, v);
  EXPECT_EQ(e.code(), refwire::errc::invalid_utf8);
  EXPECT_EQ(e.message(), "$.name: string is not valid UTF-8, at offset 1");
  // Bytes are not text: the same bytes are fine in a span.
  bytes_view b;
  ASSERT_FALSE(refwire::deserialize_view<refwire::protobuf>(bad, b));
  EXPECT_EQ(b.data.size(), 3U);
  EXPECT_EQ(b.data.data(), bad.data() + 2);
}

TEST(Views, JsonEscapeIsAnErrorAtItsBackslash) {
  const std::string text = R"({"id":1,"name":"a\nb"})";
  text_view v;
  refwire::error e = refwire::deserialize_view<refwire::json>(text, v);
  EXPECT_EQ(e.code(), refwire::errc::invalid_value);
  EXPECT_EQ(e.offset(), 17U);
  EXPECT_EQ(e.message(),
            "$.name: string has escapes and cannot be a view into the input (use std::string), at offset 17 "
            "(line 1, column 18)");

  const std::string in_list = "{\n  \"words\": [\"ok\", \"x\\u0041\"]\n}";
  e = refwire::deserialize_view<refwire::json>(in_list, v);
  EXPECT_EQ(e.code(), refwire::errc::invalid_value);
  EXPECT_EQ(e.message(),
            "$.words[1]: string has escapes and cannot be a view into the input (use std::string), at offset 22 "
            "(line 2, column 21)");

  const std::string in_key = R"({"counts":{"a":1,"b\"c":2}})";
  e = refwire::deserialize_view<refwire::json>(in_key, v);
  EXPECT_EQ(e.code(), refwire::errc::invalid_value);
  EXPECT_EQ(e.message(),
            "$.counts: string has escapes and cannot be a view into the input (use std::string), at offset 19 "
            "(line 1, column 20)");

  // A key ending in an escaped backslash is found whole.
  const std::string slash_key = R"({"counts":{"b\\":2}})";
  e = refwire::deserialize_view<refwire::json>(slash_key, v);
  EXPECT_EQ(e.code(), refwire::errc::invalid_value);
  EXPECT_EQ(e.offset(), 13U);

  // The owning type takes the same text.
  text_own own;
  EXPECT_FALSE(refwire::deserialize<refwire::json>(text, own));
  EXPECT_EQ(own.name, "a\nb");
}

TEST(Views, JsonOtherFailuresAsACopy) {
  for (std::string_view text : {R"({"name":1})", R"({"name":"abc)", "{\"name\":\"a\x01\"}", R"({"words":["a",2]})",
                                R"({"name":"ab"} x)", "{\"name\":\"\xff\"}"}) {
    const std::span<const std::byte> in = refwire::detail::as_bytes(text);
    expect_same_error<refwire::json, text_own, text_view>(in, std::string(text));
  }
}

struct list_own {
  std::vector<std::string> items;
};
BOOST_DESCRIBE_STRUCT(list_own, (), (items))

struct nest_own {
  std::optional<list_own> inner;
};
BOOST_DESCRIBE_STRUCT(nest_own, (), (inner))

TEST(Views, JsonInvalidTextKeepsTheReason) {
  // simdjson rejects the text before any value is read; the escape comes
  // first in the text, so it is the error, with its reason (the copy's own
  // error keeps its reason too).
  const std::string text = R"({"name":"a\"b ,"words":["\u0041"],"counts":{"k\\":1}})";
  text_view v;
  const refwire::error e = refwire::deserialize_view<refwire::json>(text, v);
  EXPECT_EQ(e.message(),
            "$.name: string has escapes and cannot be a view into the input (use std::string), at offset 10 "
            "(line 1, column 11)");
  text_own own;
  const refwire::error o = refwire::deserialize<refwire::json>(text, own);
  EXPECT_EQ(o.message(), "$: invalid JSON structure, at offset 16 (line 1, column 17)");
}

TEST(Views, LimitsStillApply) {
  list_view l;
  const std::vector<std::byte> three = refwire::serialize(list_view{{"a", "b", "c"}});
  refwire::error e = refwire::deserialize_view<refwire::binary>(three, l, {.max_elements = 2});
  EXPECT_EQ(e.code(), refwire::errc::element_limit);
  EXPECT_EQ(e.message(),
            "$.items: 3 elements exceed the element limit (2 left of decode_options::max_elements), at offset 1");
  list_own lo;
  EXPECT_EQ(refwire::deserialize<refwire::binary>(three, lo, {.max_elements = 2}).message(), e.message());
  const std::string text = R"({"items":["a","b","c"]})";
  e = refwire::deserialize_view<refwire::json>(text, l, {.max_elements = 2});
  EXPECT_EQ(e.code(), refwire::errc::element_limit);
  EXPECT_EQ(refwire::deserialize<refwire::json>(text, lo, {.max_elements = 2}).message(), e.message());

  nest_view n;
  nest_own no;
  const std::vector<std::byte> nested = refwire::serialize(nest_view{list_view{{"a"}}});
  e = refwire::deserialize_view<refwire::binary>(nested, n, {.max_depth = 3});
  EXPECT_EQ(e.code(), refwire::errc::depth_limit);
  EXPECT_EQ(e.message(), "$.inner.items: nesting exceeds decode_options::max_depth, at offset 2");
  EXPECT_EQ(refwire::deserialize<refwire::binary>(nested, no, {.max_depth = 3}).message(), e.message());
  ASSERT_FALSE(refwire::deserialize_view<refwire::binary>(nested, n, {.max_depth = 4}));
  EXPECT_EQ(n.inner->items.at(0), "a");
}

TEST(Views, CompressedInputIsAnError) {
  const std::vector<std::byte> bytes =
      refwire::serialize(sample_doc(), {.compression = refwire::compression::lz4});
  doc_view v;
  const refwire::error e =
      refwire::deserialize_view<refwire::binary>(bytes, v, {.compression = refwire::compression::lz4});
  EXPECT_EQ(e.code(), refwire::errc::invalid_value);
  EXPECT_EQ(e.offset(), 0U);
  EXPECT_EQ(e.message(),
            "$: deserialize_view cannot decode compressed input (decode_options::compression must be none: a "
            "view cannot point into decompressed bytes), at offset 0");
}

// ------------------------------------------------------------ allocations

template <class F>
std::size_t allocations_of_flat_decode(std::span<const std::byte> in) {
  flat_view v;
  (void)refwire::deserialize_view<F>(in, v);  // warm up (a reader's reused buffers)
  refwire_test::alloc_watch w;
  const refwire::error e = refwire::deserialize_view<F>(in, v);
  const std::size_t n = w.count();
  EXPECT_FALSE(e);
  EXPECT_EQ(v.a, std::string(300, 'a'));
  return n;
}

TEST(Views, ViewsAllocateNothing) {
  const flat_own own{std::string(300, 'a'), std::string(100, 'b'), std::vector<std::byte>(500, std::byte{7})};
  EXPECT_EQ(allocations_of_flat_decode<refwire::binary>(refwire::serialize<refwire::binary>(own)), 0U);
  EXPECT_EQ(allocations_of_flat_decode<refwire::protobuf>(refwire::serialize<refwire::protobuf>(own)), 0U);
  // The owning twin allocates for each string and the blob.
  const std::vector<std::byte> bytes = refwire::serialize(own);
  flat_own copy;
  refwire_test::alloc_watch w;
  ASSERT_FALSE(refwire::deserialize<refwire::binary>(bytes, copy));
  EXPECT_EQ(w.count(), 3U);
}

TEST(Views, OnlyContainersOfViewsAllocate) {
  const std::vector<std::byte> bytes = refwire::serialize(list_view{{std::string_view("a long element, not short"), "b"}});
  list_view v;
  refwire_test::alloc_watch w;
  ASSERT_FALSE(refwire::deserialize_view<refwire::binary>(bytes, v));
  EXPECT_EQ(w.count(), 1U);  // the vector's storage
  EXPECT_EQ(w.largest(), 2 * sizeof(std::string_view));
}

TEST(Views, JsonStringViewsAllocateNothing) {
  name_view v;
  const std::string one = R"({"name":")" + std::string(300, 'n') + R"("})";
  (void)refwire::deserialize_view<refwire::json>(one, v);
  refwire_test::alloc_watch w;
  ASSERT_FALSE(refwire::deserialize_view<refwire::json>(one, v));
  EXPECT_EQ(w.count(), 0U);
  EXPECT_EQ(v.name.size(), 300U);
}

}  // namespace vw
