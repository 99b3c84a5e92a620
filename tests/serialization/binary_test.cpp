#include <refwire/serialization.hpp>
#include <gtest/gtest.h>

struct point { int x; double y; std::string name; };
BOOST_DESCRIBE_STRUCT(point, (), (x, y, name))

TEST(binary, smoke) {
  point p{1, 2.5, "hi"};
  auto b = refwire::serialize(p);
  auto q = refwire::deserialize<point>(b);
  EXPECT_EQ(q.x, 1);
  EXPECT_EQ(q.y, 2.5);
  EXPECT_EQ(q.name, "hi");
  EXPECT_EQ(refwire::type_name<point>(), "{i32 x;f64 y;string name}");
}
