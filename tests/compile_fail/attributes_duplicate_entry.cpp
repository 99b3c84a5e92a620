// Must NOT compile: two attribute entries for one member (the second would be ignored).
#include <refwire/serialization.hpp>

namespace app {
struct user {
  std::string name;
  std::string password;
};
BOOST_DESCRIBE_STRUCT(user, (), (name, password))
REFWIRE_ATTRIBUTES(user, {.name = "password", .skip = true}, {.name = "password", .rename = "pw"})
}  // namespace app

int main() { return static_cast<int>(refwire::to_json(app::user{}).size()); }
