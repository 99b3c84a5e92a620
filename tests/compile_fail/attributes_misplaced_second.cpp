// Must NOT compile: a second REFWIRE_ATTRIBUTES outside the namespace of its
// type, while one inside it exists, would be ignored (the password would be
// written), so it is an error too.
#include <refwire/serialization.hpp>

namespace app {
struct user {
  std::string name;
  std::string password;
};
BOOST_DESCRIBE_STRUCT(user, (), (name, password))
REFWIRE_ATTRIBUTES(user, {.name = "name", .rename = "n"})
}  // namespace app

namespace other {
REFWIRE_ATTRIBUTES(app::user, {.name = "password", .skip = true})
}  // namespace other

int main() { return static_cast<int>(refwire::to_json(app::user{}).size()); }
