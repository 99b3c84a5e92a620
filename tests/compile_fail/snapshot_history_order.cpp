// Must NOT compile: a snapshot_history whose versions do not increase towards T's.
#include <refwire/serialization.hpp>

#include <string>

namespace app {
struct settings_v2 {
  std::string name;
};
BOOST_DESCRIBE_STRUCT(settings_v2, (), (name))
REFWIRE_TYPE_ATTRIBUTES(settings_v2, {.version = 2})
struct settings {
  std::string name;
  int retries = 0;
};
BOOST_DESCRIBE_STRUCT(settings, (), (name, retries))
REFWIRE_TYPE_ATTRIBUTES(settings, {.version = 2})  // not above settings_v2's
inline settings refwire_upgrade(settings_v2&& old) { return {old.name, 3}; }
}  // namespace app

template <>
struct refwire::snapshot_history<app::settings> {
  using versions = refwire::type_list<app::settings_v2>;
};

int main() {
  app::settings s = refwire::load_snapshot<app::settings>("settings.rfw");
  return s.retries;
}
