#pragma once
// A type the tests pretend not to own (no describe, private state), given to
// refwire through a codec surrogate (an integer whose decode can fail), and a
// described struct holding it; shared by the format tests.
#include <refwire/serialization.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
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
