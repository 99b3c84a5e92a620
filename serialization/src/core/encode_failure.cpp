// Encode failures of every format (detail/core/encode_failure.hpp).
#include <refwire/serialization/detail/core/encode_failure.hpp>
#include <refwire/serialization/detail/core/path.hpp>

namespace refwire::detail {

void throw_encode_failure(std::string reason) { throw encode_failure{std::move(reason), {}}; }

void throw_duration_range(long long count, long long num, long long den) {
  throw_encode_failure("a duration of " + std::to_string(count) + " x " + std::to_string(num) + "/" +
                       std::to_string(den) + " s does not fit in int64 nanoseconds");
}

void push_field(encode_failure& f, std::string_view name, std::size_t index) {
  f.path.push_back(field_segment(name, index));
}
void push_index(encode_failure& f, std::size_t index) { f.path.push_back(index_segment(index)); }
void push_key(encode_failure& f, std::string_view key) { f.path.push_back(key_segment(key)); }
void push_key(encode_failure& f, long long key) { f.path.push_back(key_segment(key)); }
void push_key(encode_failure& f, unsigned long long key) { f.path.push_back(key_segment(key)); }

void throw_encode_error(encode_failure& f) { throw encode_error(join_path(f.path), std::move(f.reason)); }

}  // namespace refwire::detail
