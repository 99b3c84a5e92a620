// Must NOT compile: a std::weak_ptr field. The first error names it, with
// advice, and the notes name the owner, the field and its type.
#include <refwire/serialization.hpp>

#include <memory>

struct session {
  int id = 0;
  std::weak_ptr<session> parent;
};
BOOST_DESCRIBE_STRUCT(session, (), (id, parent))

int main() {
  auto bytes = refwire::serialize(session{});
  return static_cast<int>(bytes.size());
}
