// Must NOT compile: a type-level naming policy gives two fields one wire name
// (user_id and userId are both "userId" in camelCase).
#include <refwire/serialization.hpp>

namespace app {
struct account {
  int user_id = 0;
  int userId = 0;
};
BOOST_DESCRIBE_STRUCT(account, (), (user_id, userId))
REFWIRE_TYPE_ATTRIBUTES(account, {.naming = refwire::naming::camel_case})
}  // namespace app

int main() { return static_cast<int>(refwire::to_json(app::account{}).size()); }
