// Must NOT compile: loading a snapshot of a type refwire cannot walk gives one readable message.
#include <refwire/serialization.hpp>

struct opaque {
  virtual ~opaque() = default;
  int hidden = 0;
};

int main() {
  opaque o = refwire::load_snapshot<opaque>("state.rfw");
  return o.hidden;
}
