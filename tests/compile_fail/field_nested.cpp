// Must NOT compile: a record nested in a container of another record, with a
// raw pointer field; the notes show the inner field and the outer path.
#include <refwire/serialization.hpp>

struct inner {
  int id = 0;
  const char* title = nullptr;
};
BOOST_DESCRIBE_STRUCT(inner, (), (id, title))

struct outer {
  std::string name;
  std::vector<inner> in;
};
BOOST_DESCRIBE_STRUCT(outer, (), (name, in))

int main() {
  std::string schema = refwire::proto_schema<outer>("my.pkg");
  return static_cast<int>(schema.size());
}
