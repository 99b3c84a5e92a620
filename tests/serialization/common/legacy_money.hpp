#pragma once
// A type the tests pretend not to own (no describe, private state), given to
// refwire through a codec surrogate (an integer whose decode can fail), and
// described structs holding it; shared by the format tests. A negative money
// encodes but does not decode: the error's path shows where it was.
#include <refwire/serialization.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace legacy {

class money {
 public:
  money() = default;
  explicit money(std::int64_t cents) : cents_(cents) {}
  [[nodiscard]] std::int64_t cents() const { return cents_; }
  friend bool operator==(const money&, const money&) = default;

 private:
  std::int64_t cents_ = 0;
};

struct wallet {
  std::string owner;
  money balance;
  std::vector<money> history;
  friend bool operator==(const wallet&, const wallet&) = default;
};
BOOST_DESCRIBE_STRUCT(wallet, (), (owner, balance, history))

/// Money in every kind of place a path can name: $.items[3].balance,
/// $.m["key"], $.by_id[7], $.opt, $.var[1], $.tup[1], $.arr[1], $.ptr.
struct ledger {
  std::vector<wallet> items;
  std::map<std::string, money> m;
  std::map<std::int32_t, money> by_id;
  std::optional<money> opt;
  std::variant<std::int32_t, money> var;
  std::tuple<std::int32_t, money> tup;
  std::array<money, 2> arr{};
  std::unique_ptr<money> ptr;
};
BOOST_DESCRIBE_STRUCT(ledger, (), (items, m, by_id, opt, var, tup, arr, ptr))

}  // namespace legacy

template <>
struct refwire::codec<legacy::money> {
  using wire = std::int64_t;
  static std::int64_t to_wire(const legacy::money& m) { return m.cents(); }
  static legacy::money from_wire(std::int64_t&& c) {
    if (c < 0) throw std::invalid_argument("money cannot be negative");
    return legacy::money(c);
  }
};
