// Must NOT compile: deserialize_view with the format first in the throwing form.
#include <string_view>

#include <refwire/serialization.hpp>

struct entry {
  std::string_view label;
};
BOOST_DESCRIBE_STRUCT(entry, (), (label))

int main() {
  std::string_view text = R"({"label":"a"})";
  entry e = refwire::deserialize_view<refwire::json, entry>(text);
  return static_cast<int>(e.label.size());
}
