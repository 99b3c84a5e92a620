// The format concept (format.hpp) and the registry (formats.hpp): which types
// are formats, visit_format by id (every known id, unknown ids), format_name,
// can_carry for each kind of type and format, and distinct ids.
#include <refwire/serialization/formats.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <boost/describe/class.hpp>
#include <boost/mp11/algorithm.hpp>

namespace {

struct point {
  int x = 0;
  double y = 0;
  std::string name;
  friend bool operator==(const point&, const point&) = default;
};
BOOST_DESCRIBE_STRUCT(point, (), (x, y, name))

struct plain {  // a PFR-only aggregate: no field names
  int a = 0;
  double b = 0;
};

struct opaque {  // not serializable at all
  virtual ~opaque() = default;
  int hidden = 0;
};

// --- look-alikes: the static members of a format, but not a format

/// encode takes an int, not any serializable T.
struct wrong_encode {
  static constexpr std::string_view name = "wrong_encode";
  static constexpr std::uint8_t id = 210;
  static constexpr bool positional = true;
  static void encode(const int&, std::vector<std::byte>&, const refwire::encode_options&) {}
  template <class T>
  static refwire::error decode(std::span<const std::byte>, T&, const refwire::decode_options&, std::size_t*) {
    return {};
  }
};

/// encode without the options argument.
struct encode_without_options {
  static constexpr std::string_view name = "encode_without_options";
  static constexpr std::uint8_t id = 211;
  static constexpr bool positional = true;
  template <class T>
  static void encode(const T&, std::vector<std::byte>&) {}
  template <class T>
  static refwire::error decode(std::span<const std::byte>, T&, const refwire::decode_options&, std::size_t*) {
    return {};
  }
};

/// decode returns bool, not refwire::error.
struct decode_returns_bool {
  static constexpr std::string_view name = "decode_returns_bool";
  static constexpr std::uint8_t id = 212;
  static constexpr bool positional = true;
  template <class T>
  static void encode(const T&, std::vector<std::byte>&, const refwire::encode_options&) {}
  template <class T>
  static bool decode(std::span<const std::byte>, T&, const refwire::decode_options&, std::size_t*) {
    return true;
  }
};

/// encode only.
struct no_decode {
  static constexpr std::string_view name = "no_decode";
  static constexpr std::uint8_t id = 213;
  static constexpr bool positional = true;
  template <class T>
  static void encode(const T&, std::vector<std::byte>&, const refwire::encode_options&) {}
};

/// The right signatures, but with state: a format is an empty tag.
struct not_empty {
  static constexpr std::string_view name = "not_empty";
  static constexpr std::uint8_t id = 214;
  static constexpr bool positional = true;
  template <class T>
  static void encode(const T&, std::vector<std::byte>&, const refwire::encode_options&) {}
  template <class T>
  static refwire::error decode(std::span<const std::byte>, T&, const refwire::decode_options&, std::size_t*) {
    return {};
  }
  int state = 0;
};

/// A format of one's own (not in the registry): binary's bytes under another id.
struct my_binary {
  static constexpr std::string_view name = "my_binary";
  static constexpr std::uint8_t id = 200;
  static constexpr bool positional = true;
  template <refwire::serializable T>
  static void encode(const T& v, std::vector<std::byte>& out, const refwire::encode_options& o) {
    refwire::binary::encode(v, out, o);
  }
  template <refwire::serializable T>
  static refwire::error decode(std::span<const std::byte> in, T& out, const refwire::decode_options& o,
                               std::size_t* consumed) {
    return refwire::binary::decode(in, out, o, consumed);
  }
};

}  // namespace

// ------------------------------------------------------------ the concept

static_assert(refwire::format<refwire::binary>);
static_assert(refwire::format<refwire::json>);
static_assert(refwire::format<refwire::protobuf>);
static_assert(refwire::format<my_binary>);

static_assert(!refwire::format<wrong_encode>);
static_assert(!refwire::format<encode_without_options>);
static_assert(!refwire::format<decode_returns_bool>);
static_assert(!refwire::format<no_decode>);
static_assert(!refwire::format<not_empty>);  // only emptiness is missing:
static_assert(!std::is_empty_v<not_empty> && !not_empty::name.empty() && not_empty::id == 214 && not_empty::positional);
static_assert(!refwire::format<int>);
static_assert(!refwire::format<point>);

TEST(FormatConcept, AFormatOfOnesOwnWorksWithTheEntryPoints) {
  const point p{1, 2.5, "a"};
  const std::vector<std::byte> bytes = refwire::serialize<my_binary>(p);
  EXPECT_EQ(bytes, refwire::serialize<refwire::binary>(p));
  EXPECT_EQ((refwire::deserialize<point, my_binary>(bytes)), p);
  point q;
  EXPECT_FALSE(refwire::deserialize<my_binary>(bytes, q));
  EXPECT_EQ(q, p);
}

// ---------------------------------------------------------------- the list

static_assert(boost::mp11::mp_size<refwire::formats>::value == 3);
static_assert(std::is_same_v<refwire::formats, boost::mp11::mp_list<refwire::binary, refwire::json, refwire::protobuf>>);

TEST(FormatRegistry, IdsAreDistinct) {
  static_assert(refwire::binary::id != refwire::json::id);
  static_assert(refwire::binary::id != refwire::protobuf::id);
  static_assert(refwire::json::id != refwire::protobuf::id);
  static_assert(refwire::detail::format_ids_unique<refwire::formats>());
  static_assert(!refwire::detail::format_ids_unique<boost::mp11::mp_list<refwire::binary, my_binary, refwire::binary>>());
  std::set<std::uint8_t> ids;
  boost::mp11::mp_for_each<refwire::formats>([&](auto f) { ids.insert(decltype(f)::id); });
  EXPECT_EQ(ids.size(), 3U);
  // The ids snapshot files and RPC frames record: never renumbered.
  EXPECT_EQ(refwire::binary::id, 1);
  EXPECT_EQ(refwire::json::id, 2);
  EXPECT_EQ(refwire::protobuf::id, 3);
}

// ------------------------------------------------------------ visit_format

template <class F>
void expect_visit_gives(std::uint8_t id) {
  int calls = 0;
  std::string_view name;
  std::uint8_t seen = 0;
  const bool found = refwire::visit_format(id, [&](auto f) {
    using G = decltype(f);
    static_assert(refwire::format<G>);
    ++calls;
    name = G::name;
    seen = G::id;
    EXPECT_TRUE((std::is_same_v<G, F>)) << "id " << int{id} << " gave " << G::name;
  });
  EXPECT_TRUE(found) << "id " << int{id};
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(name, F::name);
  EXPECT_EQ(seen, F::id);
}

TEST(FormatRegistry, VisitFormatGivesTheTagOfEachId) {
  expect_visit_gives<refwire::binary>(1);
  expect_visit_gives<refwire::json>(2);
  expect_visit_gives<refwire::protobuf>(3);
}

TEST(FormatRegistry, VisitFormatReportsAnUnknownId) {
  for (const std::uint8_t id : {std::uint8_t{0}, std::uint8_t{4}, std::uint8_t{200}, std::uint8_t{255}}) {
    int calls = 0;
    EXPECT_FALSE(refwire::visit_format(id, [&](auto) { ++calls; })) << "id " << int{id};
    EXPECT_EQ(calls, 0);

    std::uint8_t reported = 1;
    const std::string_view name = refwire::visit_format(
        id, [](auto f) { return std::string_view(decltype(f)::name); },
        [&](std::uint8_t unknown) {
          reported = unknown;
          return std::string_view("none");
        });
    EXPECT_EQ(name, "none");
    EXPECT_EQ(reported, id);
  }
}

TEST(FormatRegistry, VisitFormatReturnsTheVisitorsResult) {
  const point p{7, -1.25, "seven"};
  boost::mp11::mp_for_each<refwire::formats>([&](auto tag) {
    using F = decltype(tag);
    // Encode and decode through the id alone, as a snapshot loader or an RPC connection does.
    const std::vector<std::byte> bytes =
        refwire::visit_format(F::id, [&](auto f) { return refwire::serialize<decltype(f)>(p); },
                              [](std::uint8_t) { return std::vector<std::byte>{}; });
    EXPECT_EQ(bytes, refwire::serialize<F>(p)) << F::name;
    point q;
    const refwire::error e = refwire::visit_format(
        F::id, [&](auto f) { return refwire::deserialize<decltype(f)>(bytes, q); },
        [](std::uint8_t) { return refwire::error(refwire::errc::invalid_value, 0, "$", "unknown format"); });
    EXPECT_FALSE(e) << F::name << ": " << e.message();
    EXPECT_EQ(q, p) << F::name;
  });
}

TEST(FormatRegistry, AnUnknownIdHandlerMayThrow) {
  const auto load = [](std::uint8_t id) {
    return refwire::visit_format(
        id, [](auto f) { return int{decltype(f)::id} * 10; },
        [](std::uint8_t unknown) -> int { throw std::runtime_error("unknown format id " + std::to_string(unknown)); });
  };
  EXPECT_EQ(load(3), 30);
  try {
    (void)load(9);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "unknown format id 9");
  }
}

TEST(FormatRegistry, FormatName) {
  static_assert(refwire::format_name(1) == "binary");
  static_assert(refwire::format_name(2) == "json");
  static_assert(refwire::format_name(3) == "protobuf");
  static_assert(refwire::format_name(0) == "unknown");
  for (const std::uint8_t id : {std::uint8_t{0}, std::uint8_t{4}, std::uint8_t{255}}) {
    EXPECT_EQ(refwire::format_name(id), "unknown") << int{id};
  }
}

// --------------------------------------------------------------- can_carry

TEST(FormatRegistry, CanCarry) {
  // a described struct: every format
  static_assert(refwire::can_carry<point, refwire::binary>);
  static_assert(refwire::can_carry<point, refwire::json>);
  static_assert(refwire::can_carry<point, refwire::protobuf>);
  // a PFR-only aggregate: the positional formats only
  static_assert(refwire::can_carry<plain, refwire::binary>);
  static_assert(!refwire::can_carry<plain, refwire::json>);
  static_assert(refwire::can_carry<plain, refwire::protobuf>);
  // not serializable: none
  static_assert(!refwire::can_carry<opaque, refwire::binary>);
  static_assert(!refwire::can_carry<opaque, refwire::json>);
  static_assert(!refwire::can_carry<opaque, refwire::protobuf>);
  // shapes other than records: every format
  static_assert(refwire::can_carry<int, refwire::json>);
  static_assert(refwire::can_carry<std::vector<point>, refwire::protobuf>);
  // a format of one's own
  static_assert(refwire::can_carry<plain, my_binary>);

  // Over the registry, as a dispatcher uses it: which formats could load a plain aggregate.
  std::vector<std::string_view> carriers;
  boost::mp11::mp_for_each<refwire::formats>([&](auto f) {
    if constexpr (refwire::can_carry<plain, decltype(f)>) carriers.push_back(decltype(f)::name);
  });
  EXPECT_EQ(carriers, (std::vector<std::string_view>{"binary", "protobuf"}));
}
