// Must NOT compile: a type at global namespace takes its REFWIRE_ATTRIBUTES at global namespace.
#include <refwire/serialization.hpp>

struct user {
  std::string password;
};
BOOST_DESCRIBE_STRUCT(user, (), (password))

namespace app {
REFWIRE_ATTRIBUTES(::user, {.name = "password", .skip = true})
}  // namespace app

int main() { return static_cast<int>(refwire::to_json(user{}).size()); }
