// Must NOT compile: an attribute entry for a member the type does not have names it.
#include <refwire/serialization.hpp>

namespace app {
struct user {
  std::string name;
  std::string password;
};
BOOST_DESCRIBE_STRUCT(user, (), (name, password))
REFWIRE_ATTRIBUTES(user, {.name = "pasword", .skip = true})
}  // namespace app

int main() { return static_cast<int>(refwire::to_json(app::user{}).size()); }
