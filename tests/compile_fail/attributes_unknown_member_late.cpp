// Must NOT compile: attributes declared before the type is described are
// checked where the type is first walked, and the error names the member.
#include <refwire/serialization.hpp>

namespace app {
struct user {
  std::string name;
  std::string password;
};
REFWIRE_ATTRIBUTES(user, {.name = "pasword", .skip = true})
BOOST_DESCRIBE_STRUCT(user, (), (name, password))
}  // namespace app

int main() { return static_cast<int>(refwire::to_json(app::user{}).size()); }
