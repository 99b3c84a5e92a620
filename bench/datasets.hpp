#pragma once
// bench/datasets.hpp: the benchmark data sets, shared by every benchmark
// (binary, and later JSON and protobuf formats) so that they all measure the
// same values.
//
//   const refwire_bench::record& r = refwire_bench::data().record;
//   std::vector<std::byte> b = refwire::serialize(r);
//
// Every data set is generated from a fixed-seed std::mt19937_64 with
// refwire_bench's own range helpers (not the std distributions, whose output
// differs between standard libraries), one generator call per statement, so
// every compiler, build and run sees the same values.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <boost/describe.hpp>

#include <refwire/serialization.hpp>

namespace refwire_bench {

// ----------------------------------------------------------------- the types

/// *small*: a handful of scalars and one short string (~12 chars).
struct small {
  std::int32_t id = 0;
  std::int64_t stamp = 0;
  double value = 0;
  bool flag = false;
  std::string name;

  friend bool operator==(const small&, const small&) = default;
};
BOOST_DESCRIBE_STRUCT(small, (), (id, stamp, value, flag, name))

/// The state of a *record*: an enum Boost.Describe knows.
enum class status : std::uint8_t { pending, active, suspended, closed };
BOOST_DESCRIBE_ENUM(status, pending, active, suspended, closed)

/// The nested struct of a *record*.
struct address {
  std::string street;
  std::string city;
  std::uint32_t zip = 0;
  double latitude = 0;
  double longitude = 0;

  friend bool operator==(const address&, const address&) = default;
};
BOOST_DESCRIBE_STRUCT(address, (), (street, city, zip, latitude, longitude))

/// *record*: a typical business object, twelve fields of every common kind.
struct record {
  std::uint64_t id = 0;
  std::string name;
  std::string email;
  address home;
  std::vector<std::int32_t> scores;  // ~20 values
  std::optional<std::string> nickname;
  status state = status::pending;
  refwire::uuid key;
  refwire::timestamp created;
  double balance = 0;
  bool verified = false;
  std::int32_t age = 0;

  friend bool operator==(const record&, const record&) = default;
};
BOOST_DESCRIBE_STRUCT(record, (), (id, name, email, home, scores, nickname, state, key, created, balance,
                                   verified, age))

/// *bulk* (two cases) and *many* are plain vectors of the above.
using doubles = std::vector<double>;        // 1,000,000 values
using strings = std::vector<std::string>;   // 10,000 strings of 8-64 chars
using records = std::vector<record>;        // 10,000 records

// ------------------------------------------------------------ the generators

inline constexpr std::uint64_t default_seed = 0x5eed0f4ef3123ULL;

inline constexpr std::size_t bulk_doubles_count = 1'000'000;
inline constexpr std::size_t bulk_strings_count = 10'000;
inline constexpr std::size_t many_records_count = 10'000;
inline constexpr std::size_t record_scores_count = 20;

/// A fixed-seed generator with portable range helpers.
class generator {
 public:
  explicit generator(std::uint64_t seed = default_seed) : rng_(seed) {}

  /// Uniform-ish in [lo, hi] (modulo bias is irrelevant here; portability is not).
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) { return lo + rng_() % (hi - lo + 1); }
  std::int64_t between_signed(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(rng_() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  /// Uniform in [0, 1), 53 random bits.
  double unit() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  double real(double lo, double hi) { return lo + (hi - lo) * unit(); }
  bool coin() { return (rng_() >> 63) != 0; }

  /// n printable ASCII characters from the alphabet.
  std::string text(std::size_t n, std::string_view alphabet = "abcdefghijklmnopqrstuvwxyz") {
    std::string s(n, ' ');
    for (char& c : s) c = alphabet[static_cast<std::size_t>(between(0, alphabet.size() - 1))];
    return s;
  }
  std::string text(std::size_t min_len, std::size_t max_len, std::string_view alphabet) {
    return text(static_cast<std::size_t>(between(min_len, max_len)), alphabet);
  }

  refwire::uuid uuid() {
    refwire::uuid id;
    for (std::size_t i = 0; i < id.bytes.size(); i += 8) {
      std::uint64_t bits = rng_();
      for (std::size_t j = 0; j < 8; ++j, bits >>= 8) id.bytes[i + j] = static_cast<std::byte>(bits & 0xff);
    }
    id.bytes[6] = (id.bytes[6] & std::byte{0x0f}) | std::byte{0x40};  // version 4
    id.bytes[8] = (id.bytes[8] & std::byte{0x3f}) | std::byte{0x80};  // RFC 4122 variant
    return id;
  }

  /// A time between 2001 and 2033, with nanoseconds.
  refwire::timestamp time() {
    const std::chrono::nanoseconds ns(between_signed(1'000'000'000'000'000'000LL, 2'000'000'000'000'000'000LL));
    return refwire::timestamp(std::chrono::duration_cast<refwire::timestamp::duration>(ns));
  }

 private:
  std::mt19937_64 rng_;
};

inline constexpr std::string_view lower_alnum = "abcdefghijklmnopqrstuvwxyz0123456789";
inline constexpr std::string_view mixed_text =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,-_";

inline small make_small(generator& g) {
  small s;
  s.id = static_cast<std::int32_t>(g.between(0, 2'000'000'000));
  s.stamp = g.between_signed(1'000'000'000'000'000'000LL, 2'000'000'000'000'000'000LL);
  s.value = g.real(-1e6, 1e6);
  s.flag = g.coin();
  s.name = g.text(12, mixed_text);
  return s;
}

inline address make_address(generator& g) {
  address a;
  // One generator call per statement: the order of evaluation of `a() + b()`
  // is unspecified, and g++ and clang differ, which would change the data.
  const std::string number = std::to_string(g.between(1, 999));
  const std::string street = g.text(8, 20, "abcdefghijklmnopqrstuvwxyz ");
  a.street = number + ' ' + street + " st";
  a.city = g.text(5, 14, "abcdefghijklmnopqrstuvwxyz");
  a.zip = static_cast<std::uint32_t>(g.between(1000, 99999));
  a.latitude = g.real(-90, 90);
  a.longitude = g.real(-180, 180);
  return a;
}

inline record make_record(generator& g) {
  record r;
  r.id = g.between(1, std::uint64_t{1} << 48);
  const std::string first = g.text(6, 12, "abcdefghijklmnopqrstuvwxyz");
  const std::string last = g.text(6, 14, "abcdefghijklmnopqrstuvwxyz");
  r.name = first + ' ' + last;
  const std::string user = g.text(5, 12, lower_alnum);
  const std::string domain = g.text(4, 10, "abcdefghijklmnopqrstuvwxyz");
  r.email = user + '@' + domain + ".example.com";
  r.home = make_address(g);
  r.scores.resize(record_scores_count);
  for (std::int32_t& s : r.scores) s = static_cast<std::int32_t>(g.between_signed(-1'000, 1'000'000));
  if (g.coin()) r.nickname = g.text(4, 12, lower_alnum);
  r.state = static_cast<status>(g.between(0, 3));
  r.key = g.uuid();
  r.created = g.time();
  r.balance = g.real(-1e5, 1e7);
  r.verified = g.coin();
  r.age = static_cast<std::int32_t>(g.between(18, 99));
  return r;
}

inline doubles make_doubles(generator& g, std::size_t n = bulk_doubles_count) {
  doubles v(n);
  for (double& d : v) d = g.real(-1e9, 1e9);
  return v;
}

inline strings make_strings(generator& g, std::size_t n = bulk_strings_count) {
  strings v(n);
  for (std::string& s : v) s = g.text(8, 64, mixed_text);
  return v;
}

inline records make_records(generator& g, std::size_t n = many_records_count) {
  records v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) v.push_back(make_record(g));
  return v;
}

/// Every data set, generated once (each from its own fixed seed, so adding or
/// resizing one does not change the others).
struct data_sets {
  small small_value;
  record record_value;
  doubles bulk_doubles;
  strings bulk_strings;
  records many;
};

inline const data_sets& data() {
  static const data_sets sets = [] {
    data_sets d;
    generator g1(default_seed + 1);
    d.small_value = make_small(g1);
    generator g2(default_seed + 2);
    d.record_value = make_record(g2);
    // A record with the optional present, whatever the seed gives.
    if (!d.record_value.nickname) d.record_value.nickname = "nick";
    generator g3(default_seed + 3);
    d.bulk_doubles = make_doubles(g3);
    generator g4(default_seed + 4);
    d.bulk_strings = make_strings(g4);
    generator g5(default_seed + 5);
    d.many = make_records(g5);
    return d;
  }();
  return sets;
}

}  // namespace refwire_bench
