// Must NOT compile: a plain aggregate (fields without names) whose second
// field is not serializable: the notes name the field by its index.
#include <refwire/serialization.hpp>

struct opaque {
  virtual ~opaque() = default;
  int hidden = 0;
};

struct plain {
  int a = 0;
  opaque o;
};

int main() {
  auto bytes = refwire::serialize<refwire::protobuf>(plain{});
  return static_cast<int>(bytes.size());
}
