// refwire's binary format: serialize<binary>(v, buffer) into a reused buffer,
// deserialize<binary>(bytes, out) (the no-throw form) into a fresh value.
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include <refwire/serialization.hpp>

#include "getters.hpp"
#include "harness.hpp"

namespace refwire_bench {
namespace {

template <class T>
struct refwire_codec {
  using value_type = T;
  std::vector<std::byte> buffer;

  void encode(const T& v) { refwire::serialize<refwire::binary>(v, buffer); }
  [[nodiscard]] const std::byte* data() const { return buffer.data(); }
  [[nodiscard]] std::size_t size() const { return buffer.size(); }
  bool decode(std::span<const std::byte> in, T& out) {
    return !refwire::deserialize<refwire::binary>(in, out);
  }
};

}  // namespace

void register_refwire() {
  add_codec<refwire_codec<small>>("small", "refwire", get::small_value);
  add_codec<refwire_codec<record>>("record", "refwire", get::record_value);
  add_codec<refwire_codec<doubles>>("bulk_doubles", "refwire", get::bulk_doubles);
  add_codec<refwire_codec<strings>>("bulk_strings", "refwire", get::bulk_strings);
  add_codec<refwire_codec<records>>("many", "refwire", get::many);
}

std::size_t refwire_encoded_size(std::string_view data_set) {
  const data_sets& d = data();
  if (data_set == "small") return refwire::serialize(d.small_value).size();
  if (data_set == "record") return refwire::serialize(d.record_value).size();
  if (data_set == "bulk_doubles") return refwire::serialize(d.bulk_doubles).size();
  if (data_set == "bulk_strings") return refwire::serialize(d.bulk_strings).size();
  if (data_set == "many") return refwire::serialize(d.many).size();
  return 0;
}

}  // namespace refwire_bench
