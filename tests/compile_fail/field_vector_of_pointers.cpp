// Must NOT compile: a container of raw pointers, saved as a snapshot. The
// advice is for the element (int*), the notes name the field and its type.
#include <refwire/serialization.hpp>

struct registry {
  std::string name;
  std::vector<int*> ptrs;
};
BOOST_DESCRIBE_STRUCT(registry, (), (name, ptrs))

int main() {
  refwire::save_snapshot("registry.rfw", registry{});
  return 0;
}
