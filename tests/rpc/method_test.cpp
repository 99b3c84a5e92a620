// The compile-time method layer of the RPC (rpc/detail/method.hpp): method
// ids, names, signatures and shapes, the request and response payloads in
// every codec with the server's invoke in between, and the outcomes of
// arguments that do not decode, handlers that throw and replies that do not encode.
#include <refwire/rpc/detail/method.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "../serialization/common/alloc_watch.hpp"

namespace rpc_test {

struct point {
  std::int32_t x = 0;
  double y = 0;
  std::string name;
  friend bool operator==(const point&, const point&) = default;
};
BOOST_DESCRIBE_STRUCT(point, (), (x, y, name))
REFWIRE_NAME(point, "Point")

enum class mode : std::uint8_t { fast = 0, safe = 1 };
BOOST_DESCRIBE_ENUM(mode, fast, safe)

struct order {
  std::int32_t id = 0;
  std::vector<point> lines;
  std::optional<std::string> note;
  friend bool operator==(const order&, const order&) = default;
};
BOOST_DESCRIBE_STRUCT(order, (), (id, lines, note))

struct calculator {
  virtual ~calculator() = default;
  virtual std::int32_t add(std::int32_t a, std::int32_t b) = 0;
  virtual std::vector<point> range(std::int32_t n) = 0;
  virtual void log(std::string line) = 0;
  virtual std::string echo(const std::string& s) = 0;
  virtual std::int32_t reserve(const order& in, order& out) = 0;
  virtual void fail(std::int32_t how) = 0;
  virtual std::optional<mode> pick(mode m, std::optional<std::int32_t> hint) = 0;
  virtual std::size_t total(std::vector<point>&& pts) = 0;
};
BOOST_DESCRIBE_STRUCT(calculator, (), (add, range, log, echo, reserve, fail, pick, total))
REFWIRE_NAME(calculator, "calc.v1")

/// No REFWIRE_NAME: ids hash the method name alone.
struct unnamed {
  virtual ~unnamed() = default;
  virtual void ping() = 0;
  virtual std::int32_t add(std::int32_t a, std::int32_t b) = 0;
};
BOOST_DESCRIBE_STRUCT(unnamed, (), (ping, add))

// One interface at three versions: an argument struct that gains a field
// keeps the shape; another parameter, or an out-parameter, changes it.
struct item_v1 {
  std::int32_t id = 0;
};
BOOST_DESCRIBE_STRUCT(item_v1, (), (id))
struct item_v2 {
  std::int32_t id = 0;
  std::vector<std::string> tags;
};
BOOST_DESCRIBE_STRUCT(item_v2, (), (id, tags))

struct shop_v1 {
  virtual ~shop_v1() = default;
  virtual std::vector<item_v1> place(std::optional<item_v1> i) = 0;
};
BOOST_DESCRIBE_STRUCT(shop_v1, (), (place))
REFWIRE_NAME(shop_v1, "shop")
struct shop_v2 {
  virtual ~shop_v2() = default;
  virtual std::vector<item_v2> place(std::optional<item_v2> i) = 0;
};
BOOST_DESCRIBE_STRUCT(shop_v2, (), (place))
REFWIRE_NAME(shop_v2, "shop")
struct shop_v3 {
  virtual ~shop_v3() = default;
  virtual std::vector<item_v1> place(std::optional<item_v1> i, std::int32_t count) = 0;
};
BOOST_DESCRIBE_STRUCT(shop_v3, (), (place))
REFWIRE_NAME(shop_v3, "shop")
struct shop_v4 {
  virtual ~shop_v4() = default;
  virtual std::vector<item_v1> place(std::optional<item_v1>& i) = 0;
};
BOOST_DESCRIBE_STRUCT(shop_v4, (), (place))
REFWIRE_NAME(shop_v4, "shop")

struct calc_impl : calculator {
  std::vector<std::string> logged;
  std::int32_t add(std::int32_t a, std::int32_t b) override { return a + b; }
  std::vector<point> range(std::int32_t n) override {
    std::vector<point> v;
    for (std::int32_t i = 0; i < n; ++i) v.push_back({i, i + 0.5, "p" + std::to_string(i)});
    return v;
  }
  void log(std::string line) override { logged.push_back(std::move(line)); }
  std::string echo(const std::string& s) override { return s; }
  std::int32_t reserve(const order& in, order& out) override {
    out.id = in.id + out.id;
    out.lines = in.lines;
    out.lines.push_back({9, 9.5, "added"});
    out.note = out.note.value_or("") + "+seen";
    return static_cast<std::int32_t>(out.lines.size());
  }
  void fail(std::int32_t how) override {
    if (how == 0) throw std::out_of_range("index 9 is past the end");
    if (how == 1) throw refwire::rpc::rpc_error(refwire::rpc::status_code::resource_exhausted, "queue full");
    if (how == 2) throw 42;
    if (how == 3) throw refwire::rpc::remote_error(refwire::rpc::status_code::unavailable, "upstream.down", "gone");
  }
  std::optional<mode> pick(mode m, std::optional<std::int32_t> hint) override {
    if (!hint) return std::nullopt;
    return m == mode::fast ? mode::safe : mode::fast;
  }
  std::size_t total(std::vector<point>&& pts) override {
    const std::vector<point> taken = std::move(pts);
    return taken.size();
  }
};

}  // namespace rpc_test

namespace {

using namespace rpc_test;
namespace d = refwire::rpc::detail;
using refwire::rpc::codec;
using refwire::rpc::status_code;

constexpr codec all_codecs[] = {codec::binary, codec::json, codec::protobuf};

// ------------------------------------------------------------------ ids

TEST(rpc_method, ids_are_the_same_at_compile_time_and_at_run_time) {
  static_assert(d::method<&calculator::add>::id == 0x4a86edcaU);  // FNV-1a 32 of "calc.v1.add"
  static_assert(d::method_id("calc.v1", "add") == 0x4a86edcaU);
  static_assert(d::method<&unnamed::add>::id == 0x3b391274U);  // of "add"
  static_assert(d::method_id("", "add") == 0x3b391274U);
  EXPECT_EQ(d::method<&calculator::range>::id, d::method_id(std::string("calc.v1"), std::string("range")));
  EXPECT_EQ(d::method<&calculator::log>::id, d::method_id("calc.v1", "log"));
  EXPECT_EQ(d::method<&calculator::reserve>::id, d::method_id("calc.v1", "reserve"));
  EXPECT_EQ(d::method<&unnamed::ping>::id, d::method_id("", "ping"));
  std::set<std::uint32_t> ids;
  for (const d::method_info& m : d::methods_of<calculator>()) {
    EXPECT_EQ(m.id, d::method_id("calc.v1", m.name)) << m.name;
    ids.insert(m.id);
  }
  for (const d::method_info& m : d::methods_of<unnamed>()) ids.insert(m.id);
  EXPECT_EQ(ids.size(), d::methods_of<calculator>().size() + d::methods_of<unnamed>().size());
}

TEST(rpc_method, names_and_traits) {
  static_assert(d::interface_name_v<calculator> == "calc.v1");
  static_assert(d::interface_name_v<unnamed>.empty());
  static_assert(d::is_interface_v<calculator> && d::is_interface_v<unnamed>);
  static_assert(!d::is_interface_v<point>);  // described, but no member function
  static_assert(!d::is_interface_v<int>);
  using add = d::method<&calculator::add>;
  static_assert(add::name == "add" && add::full_name == "calc.v1.add" && add::index == 0);
  static_assert(std::is_same_v<add::interface, calculator> && std::is_same_v<add::result, std::int32_t>);
  static_assert(std::is_same_v<add::params, std::tuple<std::int32_t, std::int32_t>>);
  static_assert(std::is_same_v<add::outs, std::tuple<>>);
  static_assert(!add::one_way_ok);
  using reserve = d::method<&calculator::reserve>;
  static_assert(reserve::index == 4);
  static_assert(std::is_same_v<reserve::params, std::tuple<order, order>>);
  static_assert(std::is_same_v<reserve::outs, std::tuple<order>>);
  static_assert(std::is_same_v<reserve::response, std::tuple<std::int32_t, order>>);
  static_assert(d::method<&calculator::log>::one_way_ok);
  static_assert(std::is_same_v<d::method<&calculator::total>::params, std::tuple<std::vector<point>>>);
  static_assert(d::method<&unnamed::ping>::full_name == "ping" && d::method<&unnamed::ping>::index == 0);
  static_assert(std::is_same_v<d::result_storage<&calculator::log>, d::result_holder<void>>);
  static_assert(std::is_empty_v<d::result_storage<&calculator::log>>);
  EXPECT_EQ(d::methods_of<unnamed>()[1].full_name, "add");
  EXPECT_EQ(&d::methods_of<calculator>(), &d::methods_of<calculator>());  // built once
}

// ------------------------------------------------------- signatures, shapes

TEST(rpc_method, signatures_and_shapes) {
  const std::vector<d::method_info>& m = d::methods_of<calculator>();
  ASSERT_EQ(m.size(), 8U);
  const std::vector<std::string> names{"add", "range", "log", "echo", "reserve", "fail", "pick", "total"};
  for (std::size_t i = 0; i < m.size(); ++i) {
    EXPECT_EQ(m[i].name, names[i]);
    EXPECT_EQ(m[i].full_name, "calc.v1." + names[i]);
  }
  EXPECT_EQ(m[0].signature, "(i32,i32)->i32");
  EXPECT_EQ(m[0].shape, "(i32,i32)->i32");
  EXPECT_EQ(m[1].signature, "(i32)->vector<{i32 x;f64 y;string name}>");  // REFWIRE_NAME does not show
  EXPECT_EQ(m[1].shape, "(i32)->vector<{}>");
  EXPECT_EQ(m[2].signature, "(string)->void");
  EXPECT_EQ(m[3].signature, "(string)->string");
  EXPECT_EQ(m[4].signature,
            "({i32 id;vector<{i32 x;f64 y;string name}> lines;optional<string> note},"
            "&{i32 id;vector<{i32 x;f64 y;string name}> lines;optional<string> note})->i32");
  EXPECT_EQ(m[4].shape, "({},&{})->i32");
  EXPECT_EQ(m[5].signature, "(i32)->void");
  EXPECT_EQ(m[6].signature, "(enum:u8{fast=0,safe=1},optional<i32>)->optional<enum:u8{fast=0,safe=1}>");
  EXPECT_EQ(m[6].shape, m[6].signature);  // an enum's values are not a struct body
  EXPECT_EQ(m[7].signature, "(vector<{i32 x;f64 y;string name}>)->u64");
  EXPECT_EQ(d::methods_of<unnamed>()[0].signature, "()->void");
}

TEST(rpc_method, shape_survives_a_new_field_but_not_a_new_parameter) {
  const d::method_info& v1 = d::methods_of<shop_v1>()[0];
  const d::method_info& v2 = d::methods_of<shop_v2>()[0];
  const d::method_info& v3 = d::methods_of<shop_v3>()[0];
  const d::method_info& v4 = d::methods_of<shop_v4>()[0];
  EXPECT_EQ(v1.id, v2.id);
  EXPECT_EQ(v1.signature, "(optional<{i32 id}>)->vector<{i32 id}>");
  EXPECT_EQ(v2.signature, "(optional<{i32 id;vector<string> tags}>)->vector<{i32 id;vector<string> tags}>");
  EXPECT_NE(v1.signature, v2.signature);
  EXPECT_EQ(v1.shape, "(optional<{}>)->vector<{}>");
  EXPECT_EQ(v1.shape, v2.shape);
  EXPECT_EQ(v3.shape, "(optional<{}>,i32)->vector<{}>");
  EXPECT_NE(v1.shape, v3.shape);
  EXPECT_EQ(v4.shape, "(&optional<{}>)->vector<{}>");
  EXPECT_NE(v1.shape, v4.shape);
}

TEST(rpc_method, collapse_nested_struct_bodies) {
  EXPECT_EQ(d::collapse_struct_bodies("({i32 a;{string s;vector<{i8 c}> v} in;@0 self},i32)->{}"), "({},i32)->{}");
  EXPECT_EQ(d::collapse_struct_bodies("(variant<{i32 x},string,{enum:i8{a=0} e}>)->map<string,{f64 d}>"),
            "(variant<{},string,{}>)->map<string,{}>");
  EXPECT_EQ(d::collapse_struct_bodies("(&enum:char{a=97},tuple<{i32 x},enum:u8{z=0}>)->void"),
            "(&enum:char{a=97},tuple<{},enum:u8{z=0}>)->void");
  EXPECT_EQ(d::collapse_struct_bodies("()->void"), "()->void");
}

// ------------------------------------------------- request, invoke, response

/// The server's table entry for method M of impl.
template <auto M>
const d::served_method& entry(const std::vector<d::served_method>& table) {
  return table[d::method<M>::index];
}

struct served {
  calc_impl impl;
  std::vector<d::served_method> table = d::serve_table<calculator>(impl);
};

class rpc_codec : public testing::TestWithParam<codec> {};

TEST_P(rpc_codec, add) {
  served s;
  std::vector<std::byte> request;
  std::vector<std::byte> response;
  const std::int32_t a = 2;
  const std::int32_t b = 3;
  d::encode_request<&calculator::add>(GetParam(), request, a, b);
  EXPECT_EQ(request, refwire::visit_format(static_cast<std::uint8_t>(GetParam()),
                                           [&](auto f) { return refwire::serialize<decltype(f)>(std::tuple(2, 3)); },
                                           [](std::uint8_t) { return std::vector<std::byte>{}; }));
  d::call_outcome outcome;
  const d::served_method& m = entry<&calculator::add>(s.table);
  EXPECT_EQ(m.info.full_name, "calc.v1.add");
  EXPECT_FALSE(m.one_way_ok);
  m.invoke(m.impl, GetParam(), request, response, outcome);
  ASSERT_EQ(outcome.code, status_code::ok) << outcome.message;
  EXPECT_TRUE(outcome.type.empty());
  d::result_storage<&calculator::add> result;
  const refwire::error e = d::decode_response<&calculator::add>(GetParam(), response, result, a, b);
  ASSERT_FALSE(e) << e.message();
  EXPECT_EQ(result.value, 5);
}

TEST_P(rpc_codec, arguments_of_other_types_are_converted) {
  served s;
  std::vector<std::byte> request;
  std::vector<std::byte> response;
  const char* text = "line one";
  d::encode_request<&calculator::log>(GetParam(), request, text);  // a std::string is made for it
  d::call_outcome outcome;
  const d::served_method& m = entry<&calculator::log>(s.table);
  EXPECT_TRUE(m.one_way_ok);
  m.invoke(m.impl, GetParam(), request, response, outcome);
  ASSERT_EQ(outcome.code, status_code::ok) << outcome.message;
  EXPECT_EQ(s.impl.logged, std::vector<std::string>{"line one"});
  d::result_storage<&calculator::log> none;
  const refwire::error e = d::decode_response<&calculator::log>(GetParam(), response, none, text);
  EXPECT_FALSE(e) << e.message();
  // Binary: the void reply is empty.
  if (GetParam() == codec::binary) {
    EXPECT_TRUE(response.empty());
  }
  if (GetParam() == codec::json) {
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(response.data()), response.size()), "[]");
  }
}

TEST_P(rpc_codec, vector_of_structs) {
  served s;
  std::vector<std::byte> request;
  std::vector<std::byte> response;
  const std::int32_t n = 3;
  d::encode_request<&calculator::range>(GetParam(), request, n);
  d::call_outcome outcome;
  const d::served_method& m = entry<&calculator::range>(s.table);
  m.invoke(m.impl, GetParam(), request, response, outcome);
  ASSERT_EQ(outcome.code, status_code::ok) << outcome.message;
  d::result_storage<&calculator::range> result;
  const refwire::error e = d::decode_response<&calculator::range>(GetParam(), response, result, n);
  ASSERT_FALSE(e) << e.message();
  EXPECT_EQ(result.value, (std::vector<point>{{0, 0.5, "p0"}, {1, 1.5, "p1"}, {2, 2.5, "p2"}}));
  // An rvalue-reference parameter is an input: sent, and nothing comes back.
  std::vector<point> pts = result.value;
  d::encode_request<&calculator::total>(GetParam(), request, pts);
  const d::served_method& t = entry<&calculator::total>(s.table);
  t.invoke(t.impl, GetParam(), request, response, outcome);
  ASSERT_EQ(outcome.code, status_code::ok) << outcome.message;
  d::result_storage<&calculator::total> count;
  ASSERT_FALSE(d::decode_response<&calculator::total>(GetParam(), response, count, pts));
  EXPECT_EQ(count.value, 3U);
  EXPECT_EQ(pts.size(), 3U);
}

TEST_P(rpc_codec, out_parameter_travels_back) {
  served s;
  std::vector<std::byte> request;
  std::vector<std::byte> response;
  const order in{7, {{1, 1.25, "a"}}, std::nullopt};
  order out{100, {}, "client"};
  d::encode_request<&calculator::reserve>(GetParam(), request, in, out);
  d::call_outcome outcome;
  const d::served_method& m = entry<&calculator::reserve>(s.table);
  m.invoke(m.impl, GetParam(), request, response, outcome);
  ASSERT_EQ(outcome.code, status_code::ok) << outcome.message;
  d::result_storage<&calculator::reserve> result;
  const refwire::error e = d::decode_response<&calculator::reserve>(GetParam(), response, result, in, out);
  ASSERT_FALSE(e) << e.message();
  EXPECT_EQ(result.value, 2);
  EXPECT_EQ(out.id, 107);  // the server saw the value the client sent
  EXPECT_EQ(out.lines, (std::vector<point>{{1, 1.25, "a"}, {9, 9.5, "added"}}));
  EXPECT_EQ(out.note, "client+seen");
  EXPECT_EQ(in, (order{7, {{1, 1.25, "a"}}, std::nullopt}));  // inputs untouched
}

TEST_P(rpc_codec, enums_and_optionals) {
  served s;
  std::vector<std::byte> request;
  std::vector<std::byte> response;
  d::call_outcome outcome;
  const d::served_method& m = entry<&calculator::pick>(s.table);
  const std::optional<std::int32_t> hint = 4;
  d::encode_request<&calculator::pick>(GetParam(), request, mode::fast, hint);
  m.invoke(m.impl, GetParam(), request, response, outcome);
  ASSERT_EQ(outcome.code, status_code::ok) << outcome.message;
  d::result_storage<&calculator::pick> result;
  ASSERT_FALSE(d::decode_response<&calculator::pick>(GetParam(), response, result, mode::fast, hint));
  EXPECT_EQ(result.value, mode::safe);
  d::encode_request<&calculator::pick>(GetParam(), request, mode::fast, std::optional<std::int32_t>{});
  m.invoke(m.impl, GetParam(), request, response, outcome);
  ASSERT_EQ(outcome.code, status_code::ok) << outcome.message;
  ASSERT_FALSE(d::decode_response<&calculator::pick>(GetParam(), response, result, mode::fast, hint));
  EXPECT_EQ(result.value, std::nullopt);
}

TEST_P(rpc_codec, handler_exceptions) {
  served s;
  std::vector<std::byte> request;
  std::vector<std::byte> response{std::byte{1}};
  d::call_outcome outcome;
  const d::served_method& m = entry<&calculator::fail>(s.table);
  d::encode_request<&calculator::fail>(GetParam(), request, 0);
  m.invoke(m.impl, GetParam(), request, response, outcome);
  EXPECT_EQ(outcome.code, status_code::internal);
  EXPECT_EQ(outcome.type, "std::out_of_range");
  EXPECT_EQ(outcome.message, "index 9 is past the end");
  EXPECT_TRUE(response.empty());
  d::encode_request<&calculator::fail>(GetParam(), request, 1);
  m.invoke(m.impl, GetParam(), request, response, outcome);
  EXPECT_EQ(outcome.code, status_code::resource_exhausted);
  EXPECT_EQ(outcome.type, "refwire::rpc::rpc_error");
  EXPECT_EQ(outcome.message, "queue full");
  d::encode_request<&calculator::fail>(GetParam(), request, 2);
  m.invoke(m.impl, GetParam(), request, response, outcome);
  EXPECT_EQ(outcome.code, status_code::internal);
  EXPECT_EQ(outcome.type, "unknown exception");
  EXPECT_EQ(outcome.message, "the handler threw an exception that is not a std::exception");
  d::encode_request<&calculator::fail>(GetParam(), request, 3);  // a remote_error passed on keeps its type
  m.invoke(m.impl, GetParam(), request, response, outcome);
  EXPECT_EQ(outcome.code, status_code::unavailable);
  EXPECT_EQ(outcome.type, "upstream.down");
  EXPECT_EQ(outcome.message, "gone");
  d::encode_request<&calculator::fail>(GetParam(), request, 4);  // and the outcome is reset on success
  m.invoke(m.impl, GetParam(), request, response, outcome);
  EXPECT_EQ(outcome.code, status_code::ok);
  EXPECT_TRUE(outcome.type.empty());
  EXPECT_TRUE(outcome.message.empty());
}

TEST_P(rpc_codec, garbage_arguments_are_invalid_argument) {
  served s;
  const std::vector<std::byte> garbage{std::byte{0x01}, std::byte{0x02}, std::byte{0x03}};
  std::vector<std::byte> response;
  d::call_outcome outcome;
  const d::served_method& m = entry<&calculator::add>(s.table);
  m.invoke(m.impl, GetParam(), garbage, response, outcome);
  std::tuple<std::int32_t, std::int32_t> probe;
  const refwire::error e = d::decode_payload(GetParam(), garbage, probe);
  ASSERT_TRUE(e);
  EXPECT_EQ(outcome.code, status_code::invalid_argument);
  EXPECT_TRUE(outcome.type.empty());
  EXPECT_EQ(outcome.message, "calc.v1.add: the arguments do not decode as (i32,i32): " + e.message());
  EXPECT_TRUE(response.empty());
  // And a response that does not decode is the decode's error.
  d::result_storage<&calculator::range> r;
  EXPECT_TRUE(d::decode_response<&calculator::range>(GetParam(), garbage, r, 1));
}

INSTANTIATE_TEST_SUITE_P(codecs, rpc_codec, testing::ValuesIn(all_codecs),
                         [](const testing::TestParamInfo<codec>& p) {
                           return p.param == codec::binary ? "binary" : p.param == codec::json ? "json" : "protobuf";
                         });

TEST(rpc_method, garbage_message_in_binary) {
  served s;
  const std::vector<std::byte> garbage{std::byte{0x01}, std::byte{0x02}, std::byte{0x03}};
  std::vector<std::byte> response;
  d::call_outcome outcome;
  const d::served_method& m = entry<&calculator::add>(s.table);
  m.invoke(m.impl, codec::binary, garbage, response, outcome);
  EXPECT_EQ(outcome.code, status_code::invalid_argument);
  EXPECT_EQ(outcome.message, "calc.v1.add: the arguments do not decode as (i32,i32): "
                             "$[0]: truncated i32, needs 4 bytes, 3 left, at offset 0");
}

TEST(rpc_method, a_reply_that_does_not_encode_is_internal) {
  served s;
  std::vector<std::byte> request;
  std::vector<std::byte> response;
  d::call_outcome outcome;
  const d::served_method& m = entry<&calculator::echo>(s.table);
  const std::string bad = "\xff";
  d::encode_request<&calculator::echo>(codec::binary, request, bad);  // binary carries any bytes
  m.invoke(m.impl, codec::binary, request, response, outcome);
  EXPECT_EQ(outcome.code, status_code::ok);
  EXPECT_THROW(d::encode_request<&calculator::echo>(codec::protobuf, request, bad), refwire::encode_error);
  std::string what;
  try {
    (void)refwire::serialize<refwire::protobuf>(std::make_tuple(bad));
  } catch (const refwire::encode_error& e) {
    what = e.what();
  }
  ASSERT_FALSE(what.empty());
  // A valid request whose reply is invalid UTF-8, which protobuf cannot carry: only the reply fails.
  struct echo_bad : calc_impl {
    std::string echo(const std::string&) override { return "\xff"; }
  } bad_impl;
  const std::vector<d::served_method> table = d::serve_table<calculator>(bad_impl);
  const d::served_method& bm = entry<&calculator::echo>(table);
  d::encode_request<&calculator::echo>(codec::protobuf, request, std::string("fine"));
  bm.invoke(bm.impl, codec::protobuf, request, response, outcome);
  EXPECT_EQ(outcome.code, status_code::internal);
  EXPECT_EQ(outcome.type, "refwire::encode_error");
  EXPECT_EQ(outcome.message, "calc.v1.echo: the reply does not encode: " + what);
  EXPECT_TRUE(response.empty());
}

TEST(rpc_method, unknown_codec) {
  served s;
  std::vector<std::byte> request;
  std::vector<std::byte> response;
  const auto nine = static_cast<codec>(9);
  try {
    d::encode_request<&calculator::add>(nine, request, 1, 2);
    ADD_FAILURE() << "encoded with codec 9";
  } catch (const refwire::rpc::rpc_error& e) {
    EXPECT_EQ(e.code(), status_code::invalid_argument);
    EXPECT_STREQ(e.what(), "unknown codec 9");
  }
  d::call_outcome outcome;
  const d::served_method& m = entry<&calculator::add>(s.table);
  m.invoke(m.impl, nine, request, response, outcome);
  EXPECT_EQ(outcome.code, status_code::invalid_argument);
  EXPECT_EQ(outcome.message, "calc.v1.add: the arguments do not decode as (i32,i32): $: unknown codec 9, at offset 0");
}

TEST(rpc_method, steady_state_invoke_does_not_allocate_for_scalars) {
  served s;
  std::vector<std::byte> request;
  std::vector<std::byte> response;
  d::call_outcome outcome;
  const d::served_method& m = entry<&calculator::add>(s.table);
  d::encode_request<&calculator::add>(codec::binary, request, 20, 22);
  m.invoke(m.impl, codec::binary, request, response, outcome);  // warms the response buffer
  d::result_storage<&calculator::add> result;
  std::size_t count = 0;
  {
    refwire_test::alloc_watch w;
    for (int i = 0; i < 10; ++i) {
      d::encode_request<&calculator::add>(codec::binary, request, i, 22);
      m.invoke(m.impl, codec::binary, request, response, outcome);
      if (d::decode_response<&calculator::add>(codec::binary, response, result, i, 22)) break;
    }
    count = w.count();
  }
  EXPECT_EQ(count, 0U);
  EXPECT_EQ(result.value, 31);
  EXPECT_EQ(outcome.code, status_code::ok);
}

}  // namespace
