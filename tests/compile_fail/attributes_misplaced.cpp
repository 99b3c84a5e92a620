// Must NOT compile: REFWIRE_ATTRIBUTES outside the namespace of its type
// would be ignored (the password would be written), so it is an error.
#include <refwire/serialization.hpp>

namespace app {
struct user {
  std::string name;
  std::string password;
};
BOOST_DESCRIBE_STRUCT(user, (), (name, password))
}  // namespace app

REFWIRE_ATTRIBUTES(app::user, {.name = "password", .skip = true})

int main() { return static_cast<int>(refwire::to_json(app::user{}).size()); }
