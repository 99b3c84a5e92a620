// Must NOT compile: REFWIRE_ATTRIBUTES in an enclosing namespace is not found by ADL.
#include <refwire/serialization.hpp>

namespace app::model {
struct user {
  std::string password;
};
BOOST_DESCRIBE_STRUCT(user, (), (password))
}  // namespace app::model

namespace app {
REFWIRE_ATTRIBUTES(model::user, {.name = "password", .skip = true})
}  // namespace app

int main() { return static_cast<int>(refwire::to_json(app::model::user{}).size()); }
