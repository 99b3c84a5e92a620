// Every error message quoted in README.md, docs/ and the public headers'
// comments is one the library prints (quoted_text.hpp says how quotes are
// found). Each scenario below makes the library fail the way a page shows;
// a quote that no scenario prints fails the test with its file and line,
// so a changed message cannot leave the docs behind, and a new quote needs
// the scenario that prints it.
#include "quoted_text.hpp"

#include <refwire/serialization.hpp>

#include <gtest/gtest.h>
#include <xxhash.h>
#include <unistd.h>

#include <bitset>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "../serialization/common/legacy_money.hpp"

namespace docs {

// The types the pages use in their examples.
struct point {
  std::int32_t x = 0;
  double y = 0;
  std::string name;
};
BOOST_DESCRIBE_STRUCT(point, (), (x, y, name))

struct item {
  std::string name;
};
BOOST_DESCRIBE_STRUCT(item, (), (name))

struct order {
  std::vector<item> items;
};
BOOST_DESCRIBE_STRUCT(order, (), (items))

struct json_item {
  std::int32_t id = 0;
  std::string name;
};
BOOST_DESCRIBE_STRUCT(json_item, (), (id, name))

struct raw_event {
  refwire::raw_json payload;
};
BOOST_DESCRIBE_STRUCT(raw_event, (), (payload))

struct json_order {
  std::vector<json_item> items;
};
BOOST_DESCRIBE_STRUCT(json_order, (), (items))

struct samples {
  std::vector<double> samples;
};
BOOST_DESCRIBE_STRUCT(samples, (), (samples))

struct doubles {
  std::vector<double> doubles;
  std::map<std::string, std::string> m;
};
BOOST_DESCRIBE_STRUCT(doubles, (), (doubles, m))

struct ratio {
  double ratio = 0;
};
BOOST_DESCRIBE_STRUCT(ratio, (), (ratio))

struct timeout {
  std::chrono::hours timeout{};
};
BOOST_DESCRIBE_STRUCT(timeout, (), (timeout))

struct leg {
  std::string name;
  std::chrono::hours took{};
};
BOOST_DESCRIBE_STRUCT(leg, (), (name, took))

struct route {
  std::vector<leg> legs;
  std::map<std::string, std::chrono::milliseconds> waits;
};
BOOST_DESCRIBE_STRUCT(route, (), (legs, waits))

struct counts {
  std::map<std::string, std::int32_t> m;
  std::int32_t x = 0;
  std::string s;
};
BOOST_DESCRIBE_STRUCT(counts, (), (m, x, s))

struct address {
  std::string street;
  std::string city;
  std::int32_t zip = 0;
};
BOOST_DESCRIBE_STRUCT(address, (), (street, city, zip))

struct person {
  std::string name;
  address home;
};
BOOST_DESCRIBE_STRUCT(person, (), (name, home))

struct tagged {
  std::int32_t id = 0;
  std::map<std::string, std::int64_t> tags;
};
BOOST_DESCRIBE_STRUCT(tagged, (), (id, tags))

struct shapes {
  bool flag = false;
  std::optional<std::int32_t> opt;
  std::unique_ptr<std::int32_t> ptr;
  std::variant<std::int32_t, std::string> var;
};
BOOST_DESCRIBE_STRUCT(shapes, (), (flag, opt, ptr, var))

struct nest {
  std::vector<nest> kids;
};
BOOST_DESCRIBE_STRUCT(nest, (), (kids))

struct nothing {};
BOOST_DESCRIBE_STRUCT(nothing, (), ())

struct set_of {
  std::set<std::int32_t> s;
};
BOOST_DESCRIBE_STRUCT(set_of, (), (s))

struct map_of {
  std::map<std::int32_t, std::int32_t> m;
};
BOOST_DESCRIBE_STRUCT(map_of, (), (m))

struct ms_of {
  std::chrono::milliseconds ms{};
};
BOOST_DESCRIBE_STRUCT(ms_of, (), (ms))

struct tiny_of {
  std::chrono::duration<std::int8_t> tiny{};
};
BOOST_DESCRIBE_STRUCT(tiny_of, (), (tiny))

struct tokens {
  std::int32_t id = 0;
  std::int32_t i = 0;
  double d = 0;
  bool b = false;
  std::vector<bool> tags;
};
BOOST_DESCRIBE_STRUCT(tokens, (), (id, i, d, b, tags))

struct row {
  std::string name;
};
BOOST_DESCRIBE_STRUCT(row, (), (name))

struct table {
  std::vector<row> rows;
};
BOOST_DESCRIBE_STRUCT(table, (), (rows))

struct xs {
  std::int32_t x = 0;
  std::string s;
};
BOOST_DESCRIBE_STRUCT(xs, (), (x, s))

// snapshots.md: a type's versions and names in snapshot headers.
struct snap_profile {
  std::string name;
};
BOOST_DESCRIBE_STRUCT(snap_profile, (), (name))
REFWIRE_NAME(snap_profile, "app.profile")
struct snap_settings0 {
  std::string name;
  std::int32_t n = 0;
};
BOOST_DESCRIBE_STRUCT(snap_settings0, (), (name, n))
REFWIRE_NAME(snap_settings0, "app.settings")
struct snap_settings_v1 {
  std::string name;
};
BOOST_DESCRIBE_STRUCT(snap_settings_v1, (), (name))
REFWIRE_NAME(snap_settings_v1, "app.settings")
REFWIRE_TYPE_ATTRIBUTES(snap_settings_v1, {.version = 1})
struct snap_settings_v2 {
  std::string name;
  std::uint32_t timeout = 0;
};
BOOST_DESCRIBE_STRUCT(snap_settings_v2, (), (name, timeout))
REFWIRE_NAME(snap_settings_v2, "app.settings")
REFWIRE_TYPE_ATTRIBUTES(snap_settings_v2, {.version = 2})
struct snap_settings_v2_other {
  std::string name;
  std::uint64_t timeout = 0;
};
BOOST_DESCRIBE_STRUCT(snap_settings_v2_other, (), (name, timeout))
REFWIRE_NAME(snap_settings_v2_other, "app.settings")
REFWIRE_TYPE_ATTRIBUTES(snap_settings_v2_other, {.version = 2})
struct snap_settings {
  std::string name;
  std::uint32_t timeout = 0;
  bool on = false;
};
BOOST_DESCRIBE_STRUCT(snap_settings, (), (name, timeout, on))
REFWIRE_NAME(snap_settings, "app.settings")
REFWIRE_TYPE_ATTRIBUTES(snap_settings, {.version = 3})
inline snap_settings refwire_upgrade(snap_settings_v2&& old) { return {std::move(old.name), old.timeout, true}; }
struct snap_settings_v4 {
  std::string name;
};
BOOST_DESCRIBE_STRUCT(snap_settings_v4, (), (name))
REFWIRE_NAME(snap_settings_v4, "app.settings")
REFWIRE_TYPE_ATTRIBUTES(snap_settings_v4, {.version = 4})
// views.md: a struct of views (decoded by deserialize_view).
struct view_item {
  std::string_view name;
};
BOOST_DESCRIBE_STRUCT(view_item, (), (name))
// JSON options (json-format.md, "Options").
struct opt_circle {
  double r = 0;
};
BOOST_DESCRIBE_STRUCT(opt_circle, (), (r))
REFWIRE_NAME(opt_circle, "circle")
struct opt_square {
  double side = 0;
};
BOOST_DESCRIBE_STRUCT(opt_square, (), (side))
REFWIRE_NAME(opt_square, "square")
struct opt_drawing {
  std::variant<opt_circle, opt_square> main;
};
BOOST_DESCRIBE_STRUCT(opt_drawing, (), (main))
REFWIRE_TYPE_ATTRIBUTES(opt_drawing, {.variants = refwire::variant_form::internally_tagged, .variant_tag = "kind"})
struct opt_mixed {
  std::variant<opt_circle, std::int32_t> v;
};
BOOST_DESCRIBE_STRUCT(opt_mixed, (), (v))
struct opt_account {
  std::int32_t user_id = 0;
  std::int32_t userId = 0;
};
BOOST_DESCRIBE_STRUCT(opt_account, (), (user_id, userId))

}  // namespace docs

template <>
struct refwire::snapshot_history<docs::snap_settings> {
  using versions = refwire::type_list<docs::snap_settings_v2>;
};

namespace {

using bytes = std::vector<std::byte>;

bytes raw(std::initializer_list<int> v) {
  bytes out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}


template <class F, class T>
refwire::error decode_as(const bytes& in, const refwire::decode_options& o = {}) {
  T v{};
  return refwire::deserialize<F>(in, v, o);
}

template <class F, class T>
std::string encode_failure(const T& v) {
  try {
    (void)refwire::serialize<F>(v);
  } catch (const refwire::encode_error& e) {
    return e.what();
  }
  return "(encoded)";
}

struct produced {
  std::vector<std::string> messages;
  std::vector<std::string> reasons;
  void add(const refwire::error& e) {
    if (!e) return;
    messages.push_back(e.message());
    reasons.push_back(e.reason());
  }
  void add(const std::string& message) { messages.push_back(message); }
};

/// Each failure a page quotes, made to happen.
produced run_scenarios() {
  using namespace docs;
  using refwire::binary;
  using refwire::json;
  using refwire::protobuf;
  produced p;

  // ---- binary (README, getting-started, architecture, error.hpp, binary-format.md)
  {
    bytes b = refwire::serialize(point{3, 4.5, "corner"});
    b.pop_back();
    p.add(decode_as<binary, point>(b));  // $.name: truncated string, needs 6 bytes, 5 left, at offset 13
    bytes c = refwire::serialize(point{3, 4.5, "twelve chars"});
    c.resize(c.size() - 8);
    p.add(decode_as<binary, point>(c));  // needs 12 bytes, 4 left, at offset 13
  }
  {
    table t;  // security.md: the fourth name at offset 97
    t.rows = {row{std::string(30, 'a')}, row{std::string(31, 'b')}, row{std::string(31, 'c')}, row{"twelve chars"}};
    bytes b = refwire::serialize(t);
    b.resize(b.size() - 8);
    p.add(decode_as<binary, table>(b));
  }
  for (std::size_t len : {3u, 16u}) {  // the fourth name at offset 13, then at offset 53
    order o;
    o.items = {item{std::string(len, 'a')}, item{std::string(len, 'b')}, item{std::string(len == 3 ? 2 : len, 'c')},
               item{"twelve chars"}};
    bytes b = refwire::serialize(o);
    b.resize(b.size() - 8);
    p.add(decode_as<binary, order>(b));
  }
  {
    bytes b = refwire::serialize(point{1, 2, "ab"});  // 15 bytes
    for (int i = 0; i < 3; ++i) b.push_back(std::byte{0});
    p.add(decode_as<binary, point>(b));  // $: 3 trailing bytes after the value, at offset 15
  }
  {
    // One of each binary failure of the reason table.
    p.add(decode_as<binary, shapes>(raw({2})));           // invalid bool byte
    p.add(decode_as<binary, shapes>(raw({0, 7})));        // invalid optional tag
    p.add(decode_as<binary, shapes>(raw({0, 0, 9})));     // invalid pointer tag
    p.add(decode_as<binary, shapes>(raw({0, 0, 0, 5})));  // variant index out of range
    p.add(decode_as<binary, set_of>(raw({2, 1, 0, 0, 0, 1, 0, 0, 0})));
    p.add(decode_as<binary, map_of>(raw({2, 1, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 6, 0, 0, 0})));
    p.add(decode_as<binary, ms_of>(refwire::serialize(std::int64_t{1'500'000})));  // 1.5 ms
    p.add(decode_as<binary, tiny_of>(refwire::serialize(std::int64_t{1'000'000'000} * 1000)));  // 1000 s in i8 s
    p.add(decode_as<binary, std::vector<std::uint8_t>>(raw({0x80, 0x00})));  // not minimal
    p.add(decode_as<binary, std::vector<std::uint8_t>>(
        raw({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})));  // exceeds 64 bits
    p.add(decode_as<binary, std::vector<double>>(raw({0x80, 0x80, 0x80, 0x80, 0x80, 0x20})));  // 2^40 doubles
    p.add(decode_as<binary, std::int32_t>(raw({1, 0})));  // truncated i32
    bytes deep;
    for (int i = 0; i < 200; ++i) deep.push_back(std::byte{1});
    p.add(decode_as<binary, nest>(deep));  // nesting exceeds decode_options::max_depth
    p.add(decode_as<binary, std::vector<nothing>>(raw({5}), {.max_elements = 4}));
    p.add(decode_as<binary, std::vector<nothing>>(raw({1}), {.max_elements = 0}));  // 1 element exceeds
    bytes hundred = raw({100});
    hundred.resize(101, std::byte{'a'});
    p.add(decode_as<binary, std::string>(hundred, {.max_alloc_bytes = 10}));
  }
  // ---- durations that do not fit (binary-format.md, getting-started, protobuf-format.md)
  p.add(encode_failure<binary>(timeout{std::chrono::hours::max()}));
  {
    route r;
    r.legs.resize(3);
    r.legs[2].took = std::chrono::hours::max();
    p.add(encode_failure<binary>(r));
    route w;
    w.waits["north"] = std::chrono::milliseconds::max();
    p.add(encode_failure<protobuf>(w));
    route u;
    u.legs.resize(3);
    u.legs[2].name = "ok\xff";
    p.add(encode_failure<protobuf>(u));
  }
  // ---- JSON encode (architecture, json-format.md, error.hpp)
  {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    p.add(encode_failure<json>(samples{{1, 2, nan}}));
    p.add(encode_failure<json>(doubles{{1, nan}, {}}));
    p.add(encode_failure<json>(doubles{{}, {{"k", "a\xff"}}}));
    p.add(encode_failure<json>(ratio{nan}));
  }
  // ---- JSON decode (json-format.md, json.hpp)
  {
    const auto from = [](std::string_view t) { return bytes(reinterpret_cast<const std::byte*>(t.data()),
                                                            reinterpret_cast<const std::byte*>(t.data()) + t.size()); };
    // $.items[3].name, in a document laid out over lines
    const std::string text =
        "{\n"
        "  \"items\": [\n"
        "    {\"id\": 1, \"name\": \"ann\"},\n"
        "    {\"id\": 2, \"name\": \"bob\"},\n"
        "    {\"id\": 3, \"name\": \"cy\"},\n"
        "    {\n"
        "      \"id\": 4,\n"
        "      \"name\": 42\n"
        "    }\n"
        "  ]\n"
        "}\n";
    p.add(decode_as<json, json_order>(from(text)));
    p.add(decode_as<json, counts>(from(R"({"m":{"key":"1"}})")));
    p.add(decode_as<json, counts>(from(R"({"x":2147483648})")));
    p.add(decode_as<json, xs>(from(R"({"x":1})"), {.require_all_fields = true}));
    p.add(decode_as<json, counts>(from(R"({"x":1,"s":"a"} "fifteen bytes")")));
    p.add(decode_as<json, legacy::wallet>(from(R"({"owner":"a","balance":-5})")));
    p.add(decode_as<json, counts>(from(R"({"x":"1"})")));
    p.add(decode_as<json, tokens>(from(R"({"i":-})")));
    p.add(decode_as<json, tokens>(from(R"({"d":01})")));
    p.add(decode_as<json, tokens>(from(R"({"d":1.0e+})")));
    p.add(decode_as<json, tokens>(from(R"({"b":tru})")));
    p.add(decode_as<json, tokens>(from("{\"id\":1,\n\"tags\":[true,tru]}")));
  }
  // ---- JSON options (json-format.md, "Options")
  {
    const auto from = [](std::string_view t) { return bytes(reinterpret_cast<const std::byte*>(t.data()),
                                                            reinterpret_cast<const std::byte*>(t.data()) + t.size()); };
    try {
      (void)refwire::to_json(opt_account{}, {.naming = refwire::naming::camel_case});
    } catch (const refwire::encode_error& e) {
      p.add(std::string(e.what()));
    }
    try {
      (void)refwire::to_json(opt_mixed{1}, {.variants = refwire::variant_form::internally_tagged});
    } catch (const refwire::encode_error& e) {
      p.add(std::string(e.what()));
    }
    p.add(decode_as<json, opt_drawing>(from(R"({"main":{"side":1}})")));
    p.add(decode_as<json, opt_drawing>(from(R"({"main":{"kind":"disc"}})")));
    p.add(decode_as<json, opt_drawing>(from(R"({"main":{"kind":1}})")));
    p.add(decode_as<json, opt_drawing>(from(R"({"main":{"kind":"circle","kind":"square"}})")));
  }
  // ---- protobuf decode (protobuf-format.md)
  {
    // person{name=1, home=2{street=1, city=2, zip=3}}: zip sent as length-delimited
    p.add(decode_as<protobuf, person>(raw({0x0a, 0x04, 'a', 'b', 'c', 'd', 0x12, 0x04, 0x1a, 0x02, 'x', 'y'})));
    // name: 12 bytes claimed, 4 there
    p.add(decode_as<protobuf, point>(raw({0x08, 0x01, 0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0x1a, 12, 'h', 'e', 'l', 'l'})));
    p.add(decode_as<protobuf, tagged>(raw({0x12, 0x04, 0x0a, 0x01, 'k', 0x10})));
    p.add(decode_as<protobuf, point>(raw({0x00, 0x01})));
    p.add(decode_as<protobuf, item>(raw({0x0a, 0x01, 0xff})));
  }
  // ---- lz4 (formats.md)
  {
    refwire::decode_options lz4{.compression = refwire::compression::lz4};
    bytes big = refwire::serialize(std::string(4096, 'x'), {.compression = refwire::compression::lz4});
    bytes claims = raw({0xf7, 0x72, 0x77, 0x7a, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x01, 0x00});
    p.add(decode_as<binary, std::string>(raw({0xf7, 0x72}), lz4));  // the magic cut short
    p.add(decode_as<binary, std::string>(claims, lz4));
    for (std::size_t i = big.size() / 2; i < big.size(); ++i) big[i] = std::byte{0xff};
    const std::string_view json_text = R"({"title":"x"})";
    p.add(decode_as<binary, std::string>(bytes(reinterpret_cast<const std::byte*>(json_text.data()),
                                               reinterpret_cast<const std::byte*>(json_text.data()) + json_text.size()),
                                         lz4));  // found 7b 22 74 69
    p.add(decode_as<binary, std::string>(raw({0x11, 0x71, 0x75, 0x61, 0x6c}), lz4));  // found 11 71 75 61
    p.add(decode_as<binary, std::string>(big, lz4));
  }
  // ---- snapshots (snapshots.md): what() names the file and the check that failed
  {
    const auto what = [](auto&& load) -> std::string {
      try {
        load();
      } catch (const refwire::snapshot_error& e) {
        return e.what();
      }
      return "(loaded)";
    };
    bytes good = refwire::encode_snapshot(point{1, 2, "p"});
    bytes header = good;
    header[16] ^= std::byte{0x01};  // a fingerprint bit: the header checksum no longer matches
    p.add(what([&] { (void)refwire::decode_snapshot<point>(header, {}, "state.rfw"); }));
    p.add(what([&] { (void)refwire::decode_snapshot<order>(good, {}, "state.rfw"); }));
    bytes big = refwire::encode_snapshot(std::string(1610, 'x'));  // a 1612-byte payload
    const std::size_t header_size = big.size() - 1612 - 8;
    big.resize(header_size + 900);
    p.add(what([&] { (void)refwire::decode_snapshot<std::string>(big, {}, "state.rfw"); }));
    legacy::wallet broke;
    broke.owner = "ann";
    broke.balance = legacy::money(-5);
    bytes negative = refwire::encode_snapshot(broke);
    p.add(what([&] { (void)refwire::decode_snapshot<legacy::wallet>(negative, {}, "state.rfw"); }));
    // A file that is not there, named relative to a fresh empty directory.
    const std::filesystem::path cwd = std::filesystem::current_path();
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("refwire-quoted-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::filesystem::current_path(dir);
    p.add(what([&] { (void)refwire::load_snapshot<point>("state.rfw"); }));
    std::filesystem::current_path(cwd);
    std::filesystem::remove_all(dir);
    // Version-2 headers: a bad name length, names, versions, tolerant loads.
    bytes long_name = good;
    long_name[32] = std::byte{250};
    p.add(what([&] { (void)refwire::decode_snapshot<point>(long_name, {}, "state.rfw"); }));
    p.add(what([&] { (void)refwire::decode_snapshot<snap_profile>(refwire::encode_snapshot(snap_settings0{}), {}, "state.rfw"); }));
    p.add(what([&] {
      (void)refwire::decode_snapshot<snap_settings>(refwire::encode_snapshot(snap_settings_v2_other{}), {}, "state.rfw");
    }));
    p.add(what([&] { (void)refwire::decode_snapshot<snap_settings>(refwire::encode_snapshot(snap_settings_v4{}), {}, "state.rfw"); }));
    p.add(what([&] { (void)refwire::decode_snapshot<snap_settings>(refwire::encode_snapshot(snap_settings_v1{}), {}, "state.rfw"); }));
    p.add(what([&] { (void)refwire::decode_snapshot<point>(good, {.tolerant_snapshot = true}, "state.rfw"); }));
    // A version-1 file (36-byte header, no name or type version) of a point.
    bytes v1(36);
    const bytes payload = refwire::serialize(point{1, 2, "p"});
    const auto put = [&](std::size_t at, std::uint64_t v, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i, v >>= 8) v1[at + i] = static_cast<std::byte>(v & 0xff);
    };
    for (std::size_t i = 0; i < 12; ++i) v1[i] = good[i];
    put(8, 1, 2);
    put(12, refwire::fingerprint<point>(), 8);
    put(20, payload.size(), 8);
    put(28, XXH3_64bits(v1.data(), 28), 8);
    v1.insert(v1.end(), payload.begin(), payload.end());
    v1.resize(v1.size() + 8);
    put(36 + payload.size(), XXH3_64bits(payload.data(), payload.size()), 8);
    p.add(what([&] { (void)refwire::decode_snapshot<order>(v1, {}, "state.rfw"); }));
    p.add(what([&] { (void)refwire::decode_snapshot<snap_settings>(v1, {}, "state.rfw"); }));
  }

  // ---- views (views.md, serialize.hpp)
  {
    view_item v;
    const bytes cut = raw({5, 'a', 'b'});
    p.add(refwire::deserialize_view<binary>(cut, v));  // truncated string, needs 5 bytes, 2 left, at offset 1
    p.add(refwire::deserialize_view<json>(std::string_view(R"({"name":"a\nb"})"), v));  // string has escapes
    const bytes packed = refwire::serialize(v, {.compression = refwire::compression::lz4});
    p.add(refwire::deserialize_view<binary>(packed, v, {.compression = refwire::compression::lz4}));
  }
  // ---- json-format.md, "Time": durations, epoch timestamps, leap seconds
  {
    struct ms32_holder {
      std::chrono::duration<std::int32_t, std::milli> d{};
    };
    using ms_tp = std::chrono::time_point<std::chrono::system_clock, std::chrono::milliseconds>;
    auto json_error = [](auto value, std::string_view text, const refwire::decode_options& o = {}) {
      return refwire::deserialize<refwire::json>(text, value, o);
    };
    const refwire::decode_options secs{.timestamps = refwire::timestamp_format::epoch_seconds};
    p.add(json_error(std::chrono::milliseconds{}, "1.5"));
    p.add(json_error(std::chrono::duration<std::int32_t, std::milli>{}, "2147483648"));
    p.add(json_error(refwire::timestamp{}, "1796118449"));
    p.add(json_error(refwire::timestamp{}, "1.0000000001", secs));
    p.add(json_error(refwire::timestamp{}, "9223372037", secs));
    p.add(json_error(refwire::timestamp{}, "true", secs));
    p.add(json_error(ms_tp{}, "1796118449.0005", secs));
    p.add(json_error(refwire::timestamp{}, R"("2016-12-31T23:59:60+01:00")"));
    p.add(json_error(refwire::timestamp{}, R"("2016-12-31T23:59:61Z")"));
    (void)sizeof(ms32_holder);
  }
  // ---- json_value.hpp, json-format.md ("raw_json and json_value")
  {
    docs::raw_event bad;
    bad.payload.text = "{\"a\":";
    p.add(encode_failure<refwire::json>(bad));
    refwire::json_value v;
    p.add(refwire::deserialize<refwire::json>(std::string_view(R"({"a":1,"a":2})"), v));
  }
  // ---- bitset, path, uuid map keys (binary-format.md, json-format.md, protobuf-format.md)
  {
    p.add(decode_as<binary, std::filesystem::path>(refwire::serialize(std::string("a\xff"))));
    p.add(decode_as<binary, std::bitset<12>>(raw({0x01, 0x18})));  // bit 12 set
    p.add(decode_as<json, std::bitset<12>>(raw({'"', '1', '0', '1', '"'})));
    // map<uuid, i32> field 1: one entry {key "x", value 1}
    p.add(decode_as<protobuf, std::map<refwire::uuid, std::int32_t>>(raw({0x0a, 0x05, 0x0a, 0x01, 'x', 0x10, 0x01})));
  }
  return p;
}

std::filesystem::path source_root() { return REFWIRE_SOURCE_DIR; }

TEST(quoted_messages, the_scanner_finds_the_quotes) {
  // Guards the scanner itself: if it stopped finding quotes, the test below
  // would pass for nothing.
  const auto quotes = quoted::scan(source_root());
  std::size_t messages = 0, reasons = 0;
  for (const auto& q : quotes) (q.what == quoted::kind::message ? messages : reasons) += 1;
  EXPECT_GE(messages, 20u);
  EXPECT_GE(reasons, 20u);

  std::vector<quoted::quote> found;
  quoted::scan_text("x `$.a: truncated string, needs 1 bytes, 0 left, at offset 2` y\n"
                    "| `depth_limit` | `nesting exceeds decode_options::max_depth` | x |\n"
                    "fails with `truncated` (\"truncated vector, 5 elements need\n at least 8 bytes each, 0 left\")\n"
                    "\"$.m[\"k\"]: bad, at offset 1\" and \"$.path: reason\"\n",
                    "t.md", true, found);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].text, "$.a: truncated string, needs 1 bytes, 0 left, at offset 2");
  EXPECT_EQ(found[1].text, "$.m[\"k\"]: bad, at offset 1");
  EXPECT_EQ(found[2].text, "nesting exceeds decode_options::max_depth");
  EXPECT_EQ(found[3].text, "truncated vector, 5 elements need at least 8 bytes each, 0 left");
  std::vector<quoted::quote> in_header;
  quoted::scan_text(R"( e.what(): "$.tags[1]: invalid literal \"tru\", at offset 3" )", "t.hpp", false, in_header);
  ASSERT_EQ(in_header.size(), 1u);
  EXPECT_EQ(in_header[0].text, R"($.tags[1]: invalid literal "tru", at offset 3)");
  EXPECT_TRUE(std::regex_match("truncated map, 3 elements need at least 2 bytes each, 1 left",
                               quoted::pattern_of("truncated vector\\|set\\|map, N elements need at least M bytes each, L left")));
  EXPECT_FALSE(std::regex_match("truncated list, 3 elements need at least 2 bytes each, 1 left",
                                quoted::pattern_of("truncated vector\\|set\\|map, N elements need at least M bytes each, L left")));
  EXPECT_TRUE(std::regex_match("$.a: x 12 y", quoted::pattern_of("$.a: x ... y")));
  EXPECT_FALSE(std::regex_match("$.a: x 12 z", quoted::pattern_of("$.a: x ... y")));
}

TEST(quoted_messages, every_quoted_message_is_one_the_library_prints) {
  const produced p = run_scenarios();
  std::string missing;
  for (const auto& q : quoted::scan(source_root())) {
    bool ok = false;
    if (q.what == quoted::kind::message) {
      const std::regex re = quoted::pattern_of(q.text);
      for (const auto& m : p.messages) ok = ok || m == q.text || std::regex_match(m, re);
    } else {
      const std::regex re = quoted::pattern_of(q.text);
      const bool fragment = quoted::words(q.text) < 4;
      for (const auto& r : p.reasons) {
        std::smatch m;
        ok = ok || std::regex_match(r, re) ||
             (fragment && std::regex_search(r, m, re, std::regex_constants::match_continuous));
      }
    }
    if (!ok) missing += "  " + q.where + ": " + q.text + "\n";
  }
  std::string printed;
  for (const auto& m : p.messages) printed += "  " + m + "\n";
  EXPECT_TRUE(missing.empty()) << "quoted, but no scenario prints it (fix the page, or add the scenario):\n"
                               << missing << "the scenarios print:\n"
                               << printed;
}

}  // namespace
