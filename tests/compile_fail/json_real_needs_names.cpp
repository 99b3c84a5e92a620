// Must NOT compile: refwire::json on a PFR-only aggregate asks for a description.
#include <refwire/serialization.hpp>

struct plain {
  int a;
};

int main() {
  auto text = refwire::to_json(plain{1});
  return static_cast<int>(text.size());
}
