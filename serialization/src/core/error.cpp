#include <refwire/serialization/error.hpp>

#include <string>

namespace refwire {

std::string_view to_string(errc code) noexcept {
  switch (code) {
    case errc::ok: return "ok";
    case errc::truncated: return "truncated";
    case errc::invalid_varint: return "invalid_varint";
    case errc::invalid_bool: return "invalid_bool";
    case errc::invalid_tag: return "invalid_tag";
    case errc::invalid_variant: return "invalid_variant";
    case errc::invalid_value: return "invalid_value";
    case errc::duplicate_key: return "duplicate_key";
    case errc::depth_limit: return "depth_limit";
    case errc::element_limit: return "element_limit";
    case errc::allocation_limit: return "allocation_limit";
    case errc::trailing_bytes: return "trailing_bytes";
    case errc::corrupt_compressed: return "corrupt_compressed";
    case errc::invalid_snapshot: return "invalid_snapshot";
    case errc::io_error: return "io_error";
    case errc::wire_type: return "wire_type";
    case errc::invalid_field: return "invalid_field";
    case errc::unknown_field: return "unknown_field";
    case errc::invalid_utf8: return "invalid_utf8";
    case errc::invalid_json: return "invalid_json";
    case errc::type_mismatch: return "type_mismatch";
    case errc::missing_field: return "missing_field";
  }
  return "unknown";
}

std::string error::message() const {
  if (code_ == errc::ok) return {};
  std::string m = path_.empty() ? std::string("$") : path_;
  m += ": ";
  m += reason_;
  m += ", at offset ";
  m += std::to_string(offset_);
  if (line_ != 0) {
    m += " (line ";
    m += std::to_string(line_);
    m += ", column ";
    m += std::to_string(column_);
    m += ')';
  }
  return m;
}

decode_error::decode_error(refwire::error e) : std::runtime_error(e.message()), error_(std::move(e)) {}
decode_error::decode_error(refwire::error e, const std::string& what)
    : std::runtime_error(what), error_(std::move(e)) {}

encode_error::encode_error(std::string path, std::string reason)
    : std::runtime_error(path + ": " + reason), path_(std::move(path)), reason_(std::move(reason)) {}

}  // namespace refwire
