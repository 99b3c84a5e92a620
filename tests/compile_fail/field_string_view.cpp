// Must NOT compile: a std::string_view field, read from JSON by from_json (views: deserialize_view only).
#include <refwire/serialization.hpp>

struct entry {
  int id = 0;
  std::string_view label;
};
BOOST_DESCRIBE_STRUCT(entry, (), (id, label))

int main() {
  entry e = refwire::from_json<entry>(R"({"id":1,"label":"a"})");
  return e.id;
}
