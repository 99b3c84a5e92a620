// Must NOT compile: decoding into a tuple of references (std::tie). Encoding
// one is fine (it encodes as the tuple of the values); a decode must write
// values it owns.
#include <refwire/serialization.hpp>

#include <string>
#include <tuple>
#include <vector>

int main() {
  int n = 1;
  std::string s = "s";
  auto refs = std::tie(n, s);
  const std::vector<std::byte> bytes = refwire::serialize(refs);
  refwire::error e = refwire::deserialize<refwire::binary>(bytes, refs);
  return e ? 1 : 0;
}
