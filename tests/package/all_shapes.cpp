// A user's program with a type that holds every shape refwire supports,
// built with -Wall -Wextra -Werror (tests/package/CMakeLists.txt picks the -O
// level), round-tripped through binary, JSON, protobuf, lz4 and a snapshot and
// compared field by field: a header that warns in user code fails the build,
// a value that comes back wrong fails the run (naming the field and the route).
#include <refwire/serialization.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

namespace app {

enum class color : std::uint8_t { red = 1, green, blue };  // described: a name in JSON
BOOST_DESCRIBE_ENUM(color, red, green, blue)
enum class level : std::int16_t { low = -1, high = 300 };  // not described: its number
enum class on_off : bool { off, on };                      // an enum over bool

/// A type the program does not own, carried through refwire::codec.
class money {
 public:
  money() = default;
  explicit money(std::int64_t cents) : cents_(cents) {}
  [[nodiscard]] std::int64_t cents() const { return cents_; }
  friend bool operator==(const money&, const money&) = default;

 private:
  std::int64_t cents_ = 0;
};

struct base_part {
  std::uint32_t version = 0;
  friend bool operator==(const base_part&, const base_part&) = default;
};
BOOST_DESCRIBE_STRUCT(base_part, (), (version))

struct inner {
  std::string name;
  std::int32_t weight = 0;
  friend bool operator==(const inner&, const inner&) = default;
  friend bool operator<(const inner& a, const inner& b) { return a.name < b.name; }
};
BOOST_DESCRIBE_STRUCT(inner, (), (name, weight))

/// Every shape in one described struct with a described base.
struct everything : base_part {
  bool flag = false;
  std::int8_t i8 = 0;
  std::uint16_t u16 = 0;
  std::int32_t i32 = 0;
  std::uint64_t u64 = 0;
  std::int64_t i64 = 0;
  char ch = 0;
  float f32 = 0;
  double f64 = 0;
  color described_enum = color::red;
  level plain_enum = level::low;
  on_off bool_enum = on_off::off;
  std::byte raw{};
  std::string text;
  std::vector<std::byte> blob;
  refwire::uuid id;
  refwire::timestamp at;
  std::chrono::milliseconds timeout{};
  std::chrono::nanoseconds elapsed{};
  std::optional<std::int32_t> maybe;
  std::optional<std::string> maybe_not;
  std::optional<color> maybe_color;
  std::unique_ptr<inner> ptr;
  std::unique_ptr<inner> null_ptr;
  std::vector<std::int32_t> numbers;
  std::vector<std::string> words;
  std::vector<inner> inners;
  std::deque<double> queue;
  std::array<std::uint16_t, 3> fixed{};
  std::int32_t c_array[4] = {};
  std::set<std::string> tags;
  std::map<std::string, inner> by_name;
  std::unordered_map<std::int32_t, std::string> by_id;
  std::variant<std::int32_t, std::string, inner> choice;
  std::tuple<std::int32_t, std::string, double> triple;
  std::pair<std::string, std::int64_t> duo;
  inner nested;
  money price;
  std::vector<money> prices;
};
BOOST_DESCRIBE_STRUCT(everything, (base_part),
                      (flag, i8, u16, i32, u64, i64, ch, f32, f64, described_enum, plain_enum, bool_enum, raw, text,
                       blob, id, at, timeout, elapsed, maybe, maybe_not, maybe_color, ptr, null_ptr, numbers, words,
                       inners, queue, fixed, c_array, tags, by_name, by_id, choice, triple, duo, nested, price,
                       prices))

/// A plain aggregate (no describe: Boost.PFR walks it), positional formats only.
struct pfr_point {
  std::int32_t x;
  double y;
  std::string label;
  std::optional<std::int64_t> z;
};

/// Also a plain aggregate: snapshot loading considers every format for the
/// type itself, so a type holding an aggregate is an aggregate too.
struct positional_only {
  everything all;
  pfr_point point;
  std::vector<pfr_point> points;
};

}  // namespace app

template <>
struct refwire::codec<app::money> {
  using wire = std::int64_t;
  static std::int64_t to_wire(const app::money& m) { return m.cents(); }
  static app::money from_wire(std::int64_t&& c) { return app::money(c); }
};

namespace {

int failures = 0;

template <class A>
void expect(const char* route, const char* field, const A& got, const A& want) {
  if (!(got == want)) {
    std::fprintf(stderr, "all_shapes: %s: field %s came back different\n", route, field);
    ++failures;
  }
}

#define EXPECT_FIELD(f) expect(route, #f, got.f, want.f)

void compare(const char* route, const app::everything& got, const app::everything& want) {
  EXPECT_FIELD(version);
  EXPECT_FIELD(flag);
  EXPECT_FIELD(i8);
  EXPECT_FIELD(u16);
  EXPECT_FIELD(i32);
  EXPECT_FIELD(u64);
  EXPECT_FIELD(i64);
  EXPECT_FIELD(ch);
  EXPECT_FIELD(f32);
  EXPECT_FIELD(f64);
  EXPECT_FIELD(described_enum);
  EXPECT_FIELD(plain_enum);
  EXPECT_FIELD(bool_enum);
  EXPECT_FIELD(raw);
  EXPECT_FIELD(text);
  EXPECT_FIELD(blob);
  EXPECT_FIELD(id);
  EXPECT_FIELD(at);
  EXPECT_FIELD(timeout);
  EXPECT_FIELD(elapsed);
  EXPECT_FIELD(maybe);
  EXPECT_FIELD(maybe_not);
  EXPECT_FIELD(maybe_color);
  expect(route, "ptr", got.ptr != nullptr && want.ptr != nullptr && *got.ptr == *want.ptr, true);
  expect(route, "null_ptr", got.null_ptr == nullptr, true);
  EXPECT_FIELD(numbers);
  EXPECT_FIELD(words);
  EXPECT_FIELD(inners);
  EXPECT_FIELD(queue);
  EXPECT_FIELD(fixed);
  for (std::size_t i = 0; i < 4; ++i) expect(route, "c_array[i]", got.c_array[i], want.c_array[i]);
  EXPECT_FIELD(tags);
  EXPECT_FIELD(by_name);
  EXPECT_FIELD(by_id);
  EXPECT_FIELD(choice);
  EXPECT_FIELD(triple);
  EXPECT_FIELD(duo);
  EXPECT_FIELD(nested);
  EXPECT_FIELD(price);
  EXPECT_FIELD(prices);
}

void compare(const char* route, const app::pfr_point& got, const app::pfr_point& want) {
  EXPECT_FIELD(x);
  EXPECT_FIELD(y);
  EXPECT_FIELD(label);
  EXPECT_FIELD(z);
}

void compare(const char* route, const app::positional_only& got, const app::positional_only& want) {
  compare(route, got.all, want.all);
  compare(route, got.point, want.point);
  expect(route, "points.size()", got.points.size(), want.points.size());
  for (std::size_t i = 0; i < got.points.size() && i < want.points.size(); ++i)
    compare(route, got.points[i], want.points[i]);
}

#undef EXPECT_FIELD

app::everything sample() {
  app::everything v;
  v.version = 7;
  v.flag = true;
  v.i8 = -5;
  v.u16 = 65000;
  v.i32 = -123456;
  v.u64 = 0xfedcba9876543210ULL;
  v.i64 = -(std::int64_t{1} << 40);
  v.ch = 'q';
  v.f32 = 1.5F;
  v.f64 = -2.25e-10;
  v.described_enum = app::color::blue;
  v.plain_enum = app::level::high;
  v.bool_enum = app::on_off::on;
  v.raw = std::byte{0xa5};
  v.text = "h\xc3\xa9llo, \"world\"";
  v.blob = {std::byte{0}, std::byte{0xff}, std::byte{0x10}};
  v.id = refwire::uuid::from_string("123e4567-e89b-12d3-a456-426614174000");
  v.at = refwire::timestamp(std::chrono::nanoseconds(1'700'000'000'123'456'789LL));
  v.timeout = std::chrono::milliseconds(2500);
  v.elapsed = std::chrono::nanoseconds(-42);
  v.maybe = 0;
  v.maybe_color = app::color::green;
  v.ptr = std::make_unique<app::inner>(app::inner{"pointee", 3});
  v.numbers = {1, -2, 300000};
  v.words = {"a", "", "ccc"};
  v.inners = {{"x", 1}, {"y", -1}};
  v.queue = {0.5, 1e300};
  v.fixed = {1, 2, 65535};
  for (int i = 0; i < 4; ++i) v.c_array[i] = i * i - 3;
  v.tags = {"red", "blue"};
  v.by_name = {{"k1", {"v1", 10}}, {"k2", {"v2", 20}}};
  v.by_id = {{5, "five"}, {-6, "minus six"}};
  v.choice = app::inner{"chosen", 9};
  v.triple = {3, "three", 3.0};
  v.duo = {"pair", -9};
  v.nested = {"nested", 77};
  v.price = app::money(1999);
  v.prices = {app::money(1), app::money(-2)};
  return v;
}

template <class F, class T>
void through(const char* route, const T& want, const refwire::encode_options& eo = {},
             const refwire::decode_options& dop = {}) {
  try {
    const std::vector<std::byte> bytes = refwire::serialize<F>(want, eo);
    T got{};
    if (refwire::error e = refwire::deserialize<F>(bytes, got, dop)) {
      std::fprintf(stderr, "all_shapes: %s: %s\n", route, e.message().c_str());
      ++failures;
      return;
    }
    compare(route, got, want);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "all_shapes: %s: %s\n", route, e.what());
    ++failures;
  }
}

template <class F, class T>
void through_snapshot(const char* route, const T& want, refwire::compression c) {
  try {
    const std::vector<std::byte> bytes = refwire::encode_snapshot<F>(want, {.compression = c});
    compare(route, refwire::decode_snapshot<T>(bytes), want);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "all_shapes: %s: %s\n", route, e.what());
    ++failures;
  }
}

}  // namespace

int main() {
  const app::everything v = sample();
  const refwire::encode_options lz4_out{.compression = refwire::compression::lz4, .compression_threshold = 0};
  const refwire::decode_options lz4_in{.compression = refwire::compression::lz4};

  through<refwire::binary>("binary", v);
  through<refwire::json>("json", v);
  through<refwire::protobuf>("protobuf", v);
  through<refwire::binary>("binary+lz4", v, lz4_out, lz4_in);
  through<refwire::json>("json+lz4", v, lz4_out, lz4_in);
  through<refwire::protobuf>("protobuf+lz4", v, lz4_out, lz4_in);
  through_snapshot<refwire::binary>("snapshot binary", v, refwire::compression::none);
  through_snapshot<refwire::json>("snapshot json+lz4", v, refwire::compression::lz4);
  through_snapshot<refwire::protobuf>("snapshot protobuf+lz4", v, refwire::compression::lz4);

  app::positional_only p;
  p.all = sample();
  p.point = {-1, 0.125, "origin", 5};
  p.points = {{1, 2.0, "one", std::nullopt}, {2, 4.0, "two", -7}};
  through<refwire::binary>("binary (PFR aggregate)", p);
  through<refwire::protobuf>("protobuf (PFR aggregate)", p);
  through<refwire::binary>("binary+lz4 (PFR aggregate)", p, lz4_out, lz4_in);
  through_snapshot<refwire::binary>("snapshot binary+lz4 (PFR aggregate)", p, refwire::compression::lz4);

  // A damaged encoding is an error, not a value.
  std::vector<std::byte> damaged = refwire::serialize(v);
  damaged.pop_back();
  app::everything sink;
  if (!refwire::deserialize<refwire::binary>(damaged, sink)) {
    std::fprintf(stderr, "all_shapes: a truncated encoding decoded without error\n");
    ++failures;
  }

  if (failures != 0) {
    std::fprintf(stderr, "all_shapes: %d failure(s)\n", failures);
    return 1;
  }
  std::printf("all_shapes ok: every shape through binary, json, protobuf, lz4 and snapshots\n");
  return 0;
}
