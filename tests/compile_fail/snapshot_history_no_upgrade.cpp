// Must NOT compile: a snapshot_history lists a type with no refwire_upgrade to the next one.
#include <refwire/serialization.hpp>

#include <string>

namespace app {
struct settings_v1 {
  std::string name;
};
BOOST_DESCRIBE_STRUCT(settings_v1, (), (name))
REFWIRE_TYPE_ATTRIBUTES(settings_v1, {.version = 1})
struct settings {
  std::string name;
  int retries = 0;
};
BOOST_DESCRIBE_STRUCT(settings, (), (name, retries))
REFWIRE_TYPE_ATTRIBUTES(settings, {.version = 2})
}  // namespace app

template <>
struct refwire::snapshot_history<app::settings> {
  using versions = refwire::type_list<app::settings_v1>;
};

int main() {
  app::settings s = refwire::load_snapshot<app::settings>("settings.rfw");
  return s.retries;
}
