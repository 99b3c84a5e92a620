#pragma once
// The snapshot fuzzer's own type (besides fuzz_types.hpp's): a version 1 of
// fuzz::order whose snapshot_history upgrades version-0 snapshots of it, so
// that the fuzzer reaches the migration path. Shared with the seed generator.
#include "fuzz_types.hpp"

#include <cstdint>
#include <string>
#include <utility>

namespace fuzz {

struct order_v2 {
  std::uint32_t id = 0;
  std::uint64_t items = 0;
  std::string note;
};
BOOST_DESCRIBE_STRUCT(order_v2, (), (id, items, note))
REFWIRE_NAME(order_v2, "fuzz.order")
REFWIRE_TYPE_ATTRIBUTES(order_v2, {.version = 1})

}  // namespace fuzz

namespace shapes {

/// Found by argument-dependent lookup from shapes::order.
inline fuzz::order_v2 refwire_upgrade(order&& old) { return {old.id, old.items.size(), "upgraded"}; }

}  // namespace shapes

template <>
struct refwire::snapshot_history<fuzz::order_v2> {
  using versions = refwire::type_list<fuzz::order>;
};
