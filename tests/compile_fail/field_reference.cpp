// Must NOT compile: a plain aggregate with a reference member (Boost.PFR
// reads through it; refwire cannot decode into it).
#include <refwire/serialization.hpp>

struct holder {
  int id;
  int& value;
};

int main() {
  int x = 1;
  auto bytes = refwire::serialize(holder{0, x});
  return static_cast<int>(bytes.size());
}
