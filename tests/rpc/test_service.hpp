#pragma once
// The interfaces the RPC tests call, and an implementation of each: shared by
// the in-process tests and the server program that the process tests start.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <refwire/rpc.hpp>
#include <refwire/serialization.hpp>

namespace rpctest {

struct item {
  std::int32_t id = 0;
  std::string name;
  double price = 0;
  friend bool operator==(const item&, const item&) = default;
};
BOOST_DESCRIBE_STRUCT(item, (), (id, name, price))

struct summary {
  double total = 0;
  std::uint32_t count = 0;
  std::string status;
  friend bool operator==(const summary&, const summary&) = default;
};
BOOST_DESCRIBE_STRUCT(summary, (), (total, count, status))

/// The main test interface.
struct calculator {
  virtual ~calculator() = default;
  virtual int add(int a, int b) = 0;
  virtual std::vector<item> range(int n) = 0;
  virtual void log(std::string line) = 0;
  virtual std::string echo(const std::string& s) = 0;
  virtual int divide(int a, int b) = 0;                        // throws std::domain_error on b == 0
  virtual int total(const std::vector<item>& items, summary& out) = 0;  // out-parameter
  virtual void sleep_ms(int ms) = 0;
  virtual std::uint64_t logged() = 0;                          // how many log() calls arrived
  virtual void fail_with(int code) = 0;                        // throws rpc_error(code) or a non-std exception
};
BOOST_DESCRIBE_STRUCT(calculator, (), (add, range, log, echo, divide, total, sleep_ms, logged, fail_with))
REFWIRE_NAME(calculator, "calc.v1")

class calculator_impl : public calculator {
 public:
  int add(int a, int b) override {  // wraps (any two ints a peer sends are valid)
    return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b));
  }
  std::vector<item> range(int n) override {
    if (n < 0) throw std::invalid_argument("range: n must not be negative");
    std::vector<item> out;
    for (int i = 0; i < n; ++i) out.push_back({i, "item-" + std::to_string(i) + "-name", i * 1.5});
    return out;
  }
  void log(std::string line) override {
    std::lock_guard lock(mutex_);
    lines_.push_back(std::move(line));
    logged_.fetch_add(1);
  }
  std::string echo(const std::string& s) override { return s; }
  int divide(int a, int b) override {
    if (b == 0) throw std::domain_error("divide: division by zero");
    if (b == -1 && a == std::numeric_limits<int>::min()) throw std::domain_error("divide: overflow");
    return a / b;
  }
  int total(const std::vector<item>& items, summary& out) override {
    out = {};
    for (const item& i : items) out.total += i.price;
    out.count = static_cast<std::uint32_t>(items.size());
    out.status = out.count == 0 ? "empty" : "ok";
    return static_cast<int>(items.size());
  }
  void sleep_ms(int ms) override { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }
  std::uint64_t logged() override { return logged_.load(); }
  void fail_with(int code) override {
    if (code < 0) throw 42;  // not a std::exception
    throw refwire::rpc::rpc_error(static_cast<refwire::rpc::status_code>(code), "failed on purpose");
  }
  std::vector<std::string> lines() {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> lines_;
  std::atomic<std::uint64_t> logged_{0};
};

/// A second interface served by the same server.
struct greeter {
  virtual ~greeter() = default;
  virtual std::string greet(const std::string& who) = 0;
};
BOOST_DESCRIBE_STRUCT(greeter, (), (greet))
REFWIRE_NAME(greeter, "greeter.v1")

class greeter_impl : public greeter {
 public:
  std::string greet(const std::string& who) override { return "hello, " + who; }
};

/// calculator as an older/newer build sees it: the same name, add with other
/// parameter types (a changed signature), range unchanged, a method the
/// server does not have.
namespace changed {
struct calculator {
  virtual ~calculator() = default;
  virtual std::int64_t add(std::int64_t a, std::int64_t b) = 0;
  virtual std::vector<item> range(int n) = 0;
  virtual int subtract(int a, int b) = 0;
};
BOOST_DESCRIBE_STRUCT(calculator, (), (add, range, subtract))
REFWIRE_NAME(calculator, "calc.v1")
}  // namespace changed

/// calculator with an argument struct that has gained a field: accepted over
/// JSON and protobuf (the evolvable codecs), refused over binary.
namespace evolved {
struct item {
  std::int32_t id = 0;
  std::string name;
  double price = 0;
  std::optional<std::string> colour;  // new
};
BOOST_DESCRIBE_STRUCT(item, (), (id, name, price, colour))

struct calculator {
  virtual ~calculator() = default;
  virtual int total(const std::vector<item>& items, summary& out) = 0;
};
BOOST_DESCRIBE_STRUCT(calculator, (), (total))
REFWIRE_NAME(calculator, "calc.v1")
}  // namespace evolved

}  // namespace rpctest
