#pragma once
// bench/pb_convert.hpp: copying the benchmark structs (datasets.hpp) into the
// protoc-generated messages of peers.proto and back, shared by bench_binary's
// protobuf peer and bench_protobuf.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "datasets.hpp"
#include "peers.pb.h"

namespace refwire_bench {


/// A timestamp as google.protobuf.Timestamp (seconds, nanos in [0, 1e9)).
inline void to_pb(refwire::timestamp t, google::protobuf::Timestamp& m) {
  const std::int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  std::int64_t s = ns / 1'000'000'000;
  std::int64_t n = ns % 1'000'000'000;
  if (n < 0) {
    n += 1'000'000'000;
    --s;
  }
  m.set_seconds(s);
  m.set_nanos(static_cast<std::int32_t>(n));
}
inline refwire::timestamp from_pb(const google::protobuf::Timestamp& m) {
  const std::chrono::nanoseconds ns(m.seconds() * 1'000'000'000 + m.nanos());
  return refwire::timestamp(std::chrono::duration_cast<refwire::timestamp::duration>(ns));
}

// ----------------------------------------------------------- struct -> message

inline void to_pb(const small& s, pb::Small& m) {
  m.set_id(s.id);
  m.set_stamp(s.stamp);
  m.set_value(s.value);
  m.set_flag(s.flag);
  m.set_name(s.name);
}

inline void to_pb(const address& a, pb::Address& m) {
  m.set_street(a.street);
  m.set_city(a.city);
  m.set_zip(a.zip);
  m.set_latitude(a.latitude);
  m.set_longitude(a.longitude);
}

inline void to_pb(const record& r, pb::Record& m) {
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
  to_pb(r.created, *m.mutable_created());
  m.set_balance(r.balance);
  m.set_verified(r.verified);
  m.set_age(r.age);
}

inline void to_pb(const doubles& v, pb::Doubles& m) { m.mutable_values()->Assign(v.begin(), v.end()); }

inline void to_pb(const strings& v, pb::Strings& m) {
  m.clear_values();  // keeps the cleared strings for reuse
  for (const std::string& s : v) m.add_values(s);
}

inline void to_pb(const records& v, pb::Records& m) {
  m.clear_records();  // keeps the cleared messages for reuse
  for (const record& r : v) to_pb(r, *m.add_records());
}

// ----------------------------------------------------------- message -> struct

inline bool from_pb(const pb::Small& m, small& s) {
  s.id = m.id();
  s.stamp = m.stamp();
  s.value = m.value();
  s.flag = m.flag();
  s.name = m.name();
  return true;
}

inline bool from_pb(const pb::Address& m, address& a) {
  a.street = m.street();
  a.city = m.city();
  a.zip = m.zip();
  a.latitude = m.latitude();
  a.longitude = m.longitude();
  return true;
}

inline bool from_pb(const pb::Record& m, record& r) {
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
  r.created = from_pb(m.created());
  r.balance = m.balance();
  r.verified = m.verified();
  r.age = m.age();
  return true;
}

inline bool from_pb(const pb::Doubles& m, doubles& v) {
  v.assign(m.values().begin(), m.values().end());
  return true;
}

inline bool from_pb(const pb::Strings& m, strings& v) {
  v.assign(m.values().begin(), m.values().end());
  return true;
}

inline bool from_pb(const pb::Records& m, records& v) {
  v.resize(static_cast<std::size_t>(m.records_size()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!from_pb(m.records(static_cast<int>(i)), v[i])) return false;
  }
  return true;
}

}  // namespace refwire_bench
