// Must NOT compile: a C string field, decoded with the throwing deserialize.
#include <refwire/serialization.hpp>

struct label {
  int id = 0;
  const char* name = nullptr;
};
BOOST_DESCRIBE_STRUCT(label, (), (id, name))

int main() {
  std::vector<std::byte> bytes;
  label l = refwire::deserialize<label>(bytes);
  return l.id;
}
