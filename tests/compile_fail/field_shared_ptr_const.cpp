// Must NOT compile: a std::shared_ptr<const T> field (a decode must write the
// pointee it creates). The first error names it and says what to use.
#include <refwire/serialization.hpp>

#include <memory>
#include <string>

struct doc {
  std::shared_ptr<const std::string> title;
};
BOOST_DESCRIBE_STRUCT(doc, (), (title))

int main() {
  auto bytes = refwire::to_json(doc{});
  return static_cast<int>(bytes.size());
}
