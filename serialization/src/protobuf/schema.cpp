// The text helpers of proto_schema (detail/protobuf/schema.hpp), compiled once.
#include <refwire/serialization/detail/protobuf/schema.hpp>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace refwire::detail::pb {

std::string hashed_name(std::string_view prefix, std::string_view canonical) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(canonical)));
  return std::string(prefix) + hex;
}

std::string upper_snake(std::string_view name) {
  std::string s;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c >= 'A' && c <= 'Z') {
      if (i > 0 && ((name[i - 1] >= 'a' && name[i - 1] <= 'z') || (name[i - 1] >= '0' && name[i - 1] <= '9'))) s += '_';
      s += c;
    } else if (c >= 'a' && c <= 'z') {
      s += static_cast<char>(c - 'a' + 'A');
    } else {
      s += c;
    }
  }
  return s;
}

bool claim_name(schema_builder& b, const std::string& name, const void* key, bool user_named) {
  auto it = b.names.find(name);
  if (it == b.names.end()) {
    b.names.emplace(name, key);
    return true;
  }
  if (it->second != key && user_named) {
    throw std::invalid_argument("refwire: proto_schema: two different types are named \"" + name +
                                "\" (REFWIRE_NAME must be unique within a schema)");
  }
  return false;
}

std::string reserved_lines(std::vector<std::uint32_t> numbers, const std::string_view* names_begin,
                           const std::string_view* names_end) {
  std::string s;
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    s += i == 0 ? "  reserved " : ", ";
    s += std::to_string(numbers[i]);
  }
  if (!numbers.empty()) s += ";\n";
  for (const std::string_view* n = names_begin; n != names_end; ++n) {
    s += n == names_begin ? "  reserved \"" : ", \"";
    s += *n;
    s += '"';
  }
  if (names_begin != names_end) s += ";\n";
  return s;
}

std::string render_schema(const schema_builder& b, std::string_view package) {
  std::string s = "syntax = \"proto3\";\n\n";
  if (!package.empty()) {
    s += "package ";
    s += package;
    s += ";\n\n";
  }
  if (b.duration) s += "import \"google/protobuf/duration.proto\";\n";
  if (b.timestamp) s += "import \"google/protobuf/timestamp.proto\";\n";
  if (b.duration || b.timestamp) s += '\n';
  for (std::size_t i = 0; i < b.blocks.size(); ++i) {
    if (i > 0) s += '\n';
    s += b.blocks[i];
  }
  return s;
}

}  // namespace refwire::detail::pb
