// bench/rpc/shapes.cpp: the values every peer's server computes and every
// client checks (declared in shapes.hpp).
#include "shapes.hpp"

#include <chrono>
#include <cstdio>

namespace rpcbench {

std::vector<item> make_range(int n) {
  std::vector<item> out;
  out.reserve(n > 0 ? static_cast<std::size_t>(n) : 0);
  for (int i = 0; i < n; ++i) {
    // "item-7", padded with '.' to 8 + i % 9 characters: names of 8 to 16
    // characters, so some fit the small-string buffer and some allocate.
    char name[24];
    const int len = std::snprintf(name, sizeof name, "item-%d", i);
    const std::size_t want = 8 + static_cast<std::size_t>(i % 9);
    std::string s(name, static_cast<std::size_t>(len));
    if (s.size() < want) s.append(want - s.size(), '.');
    out.push_back({i, std::move(s), i * 1.25});
  }
  return out;
}

order make_order() {
  order o;
  o.id = refwire::uuid::from_string("123e4567-e89b-12d3-a456-426614174000");
  o.at = refwire::timestamp(std::chrono::nanoseconds(1'735'689'600'123'456'789));  // 2025-01-01, with nanoseconds
  o.customer = "Northwind Traders Ltd";
  o.lines.reserve(10);
  for (int i = 0; i < 10; ++i) {
    char sku[24];
    const int len = std::snprintf(sku, sizeof sku, "SKU-%05d-BLUE-XL", 1000 + i);
    o.lines.push_back({std::string(sku, static_cast<std::size_t>(len)), static_cast<std::uint32_t>(i + 1), 9.5 + i});
  }
  o.note = "leave the parcel at the side door";
  return o;
}

summary summarize(const order& in) {
  summary s;
  for (const line& l : in.lines) s.total += l.qty * l.price;
  s.count = static_cast<std::uint32_t>(in.lines.size());
  s.status = in.lines.empty() ? "empty" : "ok";
  return s;
}

bytes make_bytes(std::size_t n) {
  bytes out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::byte>((i * 131 + 7) & 0xff);
  return out;
}

}  // namespace rpcbench
