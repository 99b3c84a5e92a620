// Must NOT compile: a type refwire cannot walk gives one readable message.
#include <refwire/serialization.hpp>

struct opaque {
  virtual ~opaque() = default;
  int hidden = 0;
};

int main() {
  auto bytes = refwire::serialize(opaque{});
  return static_cast<int>(bytes.size());
}
