// Must NOT compile: a snapshot loaded into a type with a std::string_view field.
#include <string_view>

#include <refwire/serialization.hpp>

struct entry {
  int id = 0;
  std::string_view label;
};
BOOST_DESCRIBE_STRUCT(entry, (), (id, label))

int main() {
  entry e = refwire::load_snapshot<entry>("state.rfw");
  return e.id;
}
