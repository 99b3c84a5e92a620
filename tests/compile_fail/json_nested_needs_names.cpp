// Must NOT compile: a described struct whose field is a PFR-only aggregate,
// written as JSON, asks for a description of the nested type.
#include <refwire/serialization.hpp>

struct plain {
  int a;
};

struct outer {
  plain p;
};
BOOST_DESCRIBE_STRUCT(outer, (), (p))

int main() {
  auto bytes = refwire::serialize<refwire::json>(outer{});
  return static_cast<int>(bytes.size());
}
