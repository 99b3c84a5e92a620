// Must NOT compile: a protobuf map keyed by a double (protobuf's keys are
// integral or strings; refwire also takes enums and uuids in their place).
#include <refwire/serialization.hpp>

#include <map>

struct prices {
  std::map<double, int> by_price;
};
BOOST_DESCRIBE_STRUCT(prices, (), (by_price))

int main() {
  auto bytes = refwire::serialize<refwire::protobuf>(prices{});
  return static_cast<int>(bytes.size());
}
