#pragma once
// bench/rpc/shapes.hpp: the calls bench_rpc measures, spelled out so that every
// peer (refwire, gRPC, Cap'n Proto) does the same work. Peer clients take and
// return these C++ values: converting them to and from a peer's own generated
// types is part of that peer's cost, as it is for a user who has these structs.
//
//   Sim     int add(int a, int b)
//   Void    void ping()
//   Str     std::string echo(const std::string&)           with "Hello World!"
//   Rg      std::vector<item> range(int n)                 with n = 50
//   CxOut   int cx(const order& in, summary& out)          10 lines
//   Bytes25 / Bytes8M   void put(const bytes&), bytes echo_bytes(const bytes&)
//   Conn    connect, handshake, first Sim call, close
#include <refwire/rpc.hpp>
#include <refwire/serialization.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rpcbench {

struct item {
  std::int32_t id = 0;
  std::string name;  // 8-16 characters
  double price = 0;
};
BOOST_DESCRIBE_STRUCT(item, (), (id, name, price))

struct line {
  std::string sku;
  std::uint32_t qty = 0;
  double price = 0;
};
BOOST_DESCRIBE_STRUCT(line, (), (sku, qty, price))

struct order {
  refwire::uuid id{};
  refwire::timestamp at{};
  std::string customer;
  std::vector<line> lines;
  std::optional<std::string> note;
};
BOOST_DESCRIBE_STRUCT(order, (), (id, at, customer, lines, note))

struct summary {
  double total = 0;
  std::uint32_t count = 0;
  std::string status;
};
BOOST_DESCRIBE_STRUCT(summary, (), (total, count, status))

using bytes = std::vector<std::byte>;

inline constexpr int range_n = 50;
inline constexpr std::size_t small_bytes = 25;
inline constexpr std::size_t large_bytes = 8'294'400;  // one 1920x1080 RGBA frame
inline constexpr const char* hello = "Hello World!";

/// The service every peer implements (refwire serves this interface itself).
struct bench_service {
  virtual ~bench_service() = default;
  virtual int add(int a, int b) = 0;
  virtual void ping() = 0;
  virtual std::string echo(const std::string& s) = 0;
  virtual std::vector<item> range(int n) = 0;
  virtual int cx(const order& in, summary& out) = 0;
  virtual void put(const bytes& b) = 0;
  virtual bytes echo_bytes(const bytes& b) = 0;
};
BOOST_DESCRIBE_STRUCT(bench_service, (), (add, ping, echo, range, cx, put, echo_bytes))
REFWIRE_NAME(bench_service, "bench.v1")

// -- the work, shared by every peer's server and checked by every client --

/// n items: id i, a name of 8-16 characters, price i * 1.25.
std::vector<item> make_range(int n);
/// The CxOut argument: 10 lines, a note, a fixed id and time.
order make_order();
/// What cx computes: total = sum(qty * price), count = lines, status "ok" (or "empty").
summary summarize(const order& in);
/// n bytes of a fixed pattern.
bytes make_bytes(std::size_t n);

/// The reference server logic; refwire serves it as is, peers call it from theirs.
struct service_impl final : bench_service {
  int add(int a, int b) override { return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b)); }
  void ping() override {}
  std::string echo(const std::string& s) override { return s; }
  std::vector<item> range(int n) override { return make_range(n); }
  int cx(const order& in, summary& out) override {
    out = summarize(in);
    return static_cast<int>(out.count);
  }
  void put(const bytes&) override {}
  bytes echo_bytes(const bytes& b) override { return b; }
};

}  // namespace rpcbench
