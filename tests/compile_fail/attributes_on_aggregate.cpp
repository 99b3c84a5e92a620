// Must NOT compile: an aggregate walked by position has no member names, so
// REFWIRE_ATTRIBUTES on it would be ignored.
#include <refwire/serialization.hpp>

namespace app {
struct user {
  int id = 0;
  int secret = 0;
};
REFWIRE_ATTRIBUTES(user, {.name = "secret", .skip = true})
}  // namespace app

int main() { return static_cast<int>(refwire::serialize(app::user{}).size()); }
