// Must NOT compile: a view refwire does not carry (a span of ints).
#include <span>

#include <refwire/serialization.hpp>

struct samples {
  std::span<const int> values;
};
BOOST_DESCRIBE_STRUCT(samples, (), (values))

int main() {
  auto bytes = refwire::serialize(samples{});
  return static_cast<int>(bytes.size());
}
