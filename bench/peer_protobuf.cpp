// protobuf (protoc-generated code from peers.proto).
//
// Encode: copy the struct into a message, then ByteSizeLong() and
// SerializeWithCachedSizesToArray() into a reused buffer. Decode:
// ParseFromArray() and copy the message into a fresh struct. The message
// object is reused across iterations in both directions (protobuf's most
// favourable setup: a cleared message keeps its strings and sub-messages).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "pb_convert.hpp"
#include "peers.pb.h"

#include "getters.hpp"
#include "harness.hpp"

namespace refwire_bench {
namespace {

template <class T, class Message>
struct protobuf_codec {
  using value_type = T;
  Message message;
  std::vector<std::byte> buffer;

  void encode(const T& v) {
    to_pb(v, message);
    const std::size_t n = message.ByteSizeLong();
    buffer.resize(n);
    message.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(buffer.data()));
  }
  [[nodiscard]] const std::byte* data() const { return buffer.data(); }
  [[nodiscard]] std::size_t size() const { return buffer.size(); }
  bool decode(std::span<const std::byte> in, T& out) {
    if (!message.ParseFromArray(in.data(), static_cast<int>(in.size()))) return false;
    return from_pb(message, out);
  }
};

}  // namespace

void register_protobuf() {
  add_codec<protobuf_codec<small, pb::Small>>("small", "protobuf", get::small_value);
  add_codec<protobuf_codec<record, pb::Record>>("record", "protobuf", get::record_value);
  add_codec<protobuf_codec<doubles, pb::Doubles>>("bulk_doubles", "protobuf", get::bulk_doubles);
  add_codec<protobuf_codec<strings, pb::Strings>>("bulk_strings", "protobuf", get::bulk_strings);
  add_codec<protobuf_codec<records, pb::Records>>("many", "protobuf", get::many);
}

}  // namespace refwire_bench
