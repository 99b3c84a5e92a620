// The text helpers of proto_schema (detail/protobuf/schema.hpp), compiled once.
#include <refwire/serialization/detail/protobuf/schema.hpp>

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
