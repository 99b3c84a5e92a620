// Must NOT compile: a long double field, decoded with the non-throwing deserialize.
#include <refwire/serialization.hpp>

struct measure {
  int id = 0;
  long double ratio = 0;
};
BOOST_DESCRIBE_STRUCT(measure, (), (id, ratio))

int main() {
  std::vector<std::byte> bytes;
  measure m;
  refwire::error e = refwire::deserialize<refwire::binary>(bytes, m);
  return e ? 1 : 0;
}
