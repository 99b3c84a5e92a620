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

#include "peers.pb.h"

#include "getters.hpp"
#include "harness.hpp"

namespace refwire_bench {
namespace {

std::int64_t to_ns(refwire::timestamp t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
refwire::timestamp from_ns(std::int64_t ns) {
  return refwire::timestamp(std::chrono::duration_cast<refwire::timestamp::duration>(std::chrono::nanoseconds(ns)));
}

// ----------------------------------------------------------- struct -> message

void to_pb(const small& s, pb::Small& m) {
  m.set_id(s.id);
  m.set_stamp(s.stamp);
  m.set_value(s.value);
  m.set_flag(s.flag);
  m.set_name(s.name);
}

void to_pb(const address& a, pb::Address& m) {
  m.set_street(a.street);
  m.set_city(a.city);
  m.set_zip(a.zip);
  m.set_latitude(a.latitude);
  m.set_longitude(a.longitude);
}

void to_pb(const record& r, pb::Record& m) {
  m.set_id(r.id);
  m.set_name(r.name);
  m.set_email(r.email);
  to_pb(r.home, *m.mutable_home());
  m.mutable_scores()->Assign(r.scores.begin(), r.scores.end());
  if (r.nickname) {
    m.set_nickname(*r.nickname);
  } else {
    m.clear_nickname();
  }
  m.set_state(static_cast<pb::Status>(r.state));
  m.set_key(reinterpret_cast<const char*>(r.key.bytes.data()), r.key.bytes.size());
  m.set_created_ns(to_ns(r.created));
  m.set_balance(r.balance);
  m.set_verified(r.verified);
  m.set_age(r.age);
}

void to_pb(const doubles& v, pb::Doubles& m) { m.mutable_values()->Assign(v.begin(), v.end()); }

void to_pb(const strings& v, pb::Strings& m) {
  m.clear_values();  // keeps the cleared strings for reuse
  for (const std::string& s : v) m.add_values(s);
}

void to_pb(const records& v, pb::Records& m) {
  m.clear_records();  // keeps the cleared messages for reuse
  for (const record& r : v) to_pb(r, *m.add_records());
}

// ----------------------------------------------------------- message -> struct

bool from_pb(const pb::Small& m, small& s) {
  s.id = m.id();
  s.stamp = m.stamp();
  s.value = m.value();
  s.flag = m.flag();
  s.name = m.name();
  return true;
}

bool from_pb(const pb::Address& m, address& a) {
  a.street = m.street();
  a.city = m.city();
  a.zip = m.zip();
  a.latitude = m.latitude();
  a.longitude = m.longitude();
  return true;
}

bool from_pb(const pb::Record& m, record& r) {
  r.id = m.id();
  r.name = m.name();
  r.email = m.email();
  from_pb(m.home(), r.home);
  r.scores.assign(m.scores().begin(), m.scores().end());
  if (m.has_nickname()) {
    r.nickname = m.nickname();
  } else {
    r.nickname.reset();
  }
  const int state = m.state();
  if (state < 0 || state > 3) return false;
  r.state = static_cast<status>(state);
  if (m.key().size() != r.key.bytes.size()) return false;
  std::memcpy(r.key.bytes.data(), m.key().data(), r.key.bytes.size());
  r.created = from_ns(m.created_ns());
  r.balance = m.balance();
  r.verified = m.verified();
  r.age = m.age();
  return true;
}

bool from_pb(const pb::Doubles& m, doubles& v) {
  v.assign(m.values().begin(), m.values().end());
  return true;
}

bool from_pb(const pb::Strings& m, strings& v) {
  v.assign(m.values().begin(), m.values().end());
  return true;
}

bool from_pb(const pb::Records& m, records& v) {
  v.resize(static_cast<std::size_t>(m.records_size()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!from_pb(m.records(static_cast<int>(i)), v[i])) return false;
  }
  return true;
}

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
