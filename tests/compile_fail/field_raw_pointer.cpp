// Must NOT compile: a raw pointer field. The first error is refwire's advice,
// and the notes name the owner, the field and its type.
#include <refwire/serialization.hpp>

struct node {
  int value = 0;
  node* next = nullptr;
};
BOOST_DESCRIBE_STRUCT(node, (), (value, next))

int main() {
  auto bytes = refwire::serialize(node{});
  return static_cast<int>(bytes.size());
}
