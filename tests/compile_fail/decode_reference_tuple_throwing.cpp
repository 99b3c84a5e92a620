// Must NOT compile: deserialize<T> of a tuple of references, here inside a
// vector. The error is the reference tuple's, not "must be default constructible".
#include <refwire/serialization.hpp>

#include <string>
#include <tuple>
#include <vector>

int main() {
  const std::vector<std::byte> bytes = refwire::serialize<refwire::json>(std::vector<std::tuple<int, std::string>>{});
  auto v = refwire::deserialize<std::vector<std::tuple<const int&, const std::string&>>, refwire::json>(bytes);
  return static_cast<int>(v.size());
}
