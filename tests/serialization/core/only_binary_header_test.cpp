// A translation unit that includes binary.hpp and nothing else of refwire:
// the entry points come with it, and serialize(v) / deserialize<T>(b) with the
// default format (binary, only declared in serialize.hpp) compile and work.
// Part of format_registry_test.
#include <refwire/serialization/binary.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include <boost/describe/class.hpp>

namespace {

struct pair_of {
  int a = 0;
  double b = 0;
};
BOOST_DESCRIBE_STRUCT(pair_of, (), (a, b))

struct plain {  // a PFR aggregate
  int a = 0;
};

}  // namespace

static_assert(refwire::format<refwire::binary>);

TEST(OneFormatHeader, BinaryAloneGivesTheDefaultEntryPoints) {
  const std::vector<std::byte> bytes = refwire::serialize(pair_of{3, 0.5});
  EXPECT_EQ(bytes, refwire::serialize<refwire::binary>(pair_of{3, 0.5}));
  EXPECT_EQ(bytes.size(), sizeof(int) + sizeof(double));
  const pair_of back = refwire::deserialize<pair_of>(bytes);
  EXPECT_EQ(back.a, 3);
  EXPECT_EQ(back.b, 0.5);

  std::vector<std::byte> buffer;
  refwire::serialize(plain{7}, buffer);
  plain p;
  EXPECT_FALSE(refwire::deserialize<refwire::binary>(buffer, p));
  EXPECT_EQ(p.a, 7);
}
