// FlatBuffers (flatc-generated code from peers.fbs).
//
// Encode: build the buffer from the struct with a reused FlatBufferBuilder
// (Clear() keeps its memory) and a reused offset vector. Decode: run the
// Verifier over the whole buffer (refwire validates its input too, so the
// comparison is like for like), then read it back into a fresh struct.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "peers_generated.h"

#include "getters.hpp"
#include "harness.hpp"

namespace refwire_bench {
namespace {

namespace fbs = flatbuffers;

std::int64_t to_ns(refwire::timestamp t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
refwire::timestamp from_ns(std::int64_t ns) {
  return refwire::timestamp(std::chrono::duration_cast<refwire::timestamp::duration>(std::chrono::nanoseconds(ns)));
}

// ------------------------------------------------------------------ building

struct builder {
  fbs::FlatBufferBuilder fbb{1024};
  std::vector<fbs::Offset<fbs::String>> string_offsets;
  std::vector<fbs::Offset<fb::Record>> record_offsets;
};

fbs::Offset<fb::Small> build(builder& b, const small& s) {
  auto name = b.fbb.CreateString(s.name);
  return fb::CreateSmall(b.fbb, s.id, s.stamp, s.value, s.flag, name);
}

fbs::Offset<fb::Record> build(builder& b, const record& r) {
  auto& f = b.fbb;
  auto name = f.CreateString(r.name);
  auto email = f.CreateString(r.email);
  auto street = f.CreateString(r.home.street);
  auto city = f.CreateString(r.home.city);
  auto home = fb::CreateAddress(f, street, city, r.home.zip, r.home.latitude, r.home.longitude);
  auto scores = f.CreateVector(r.scores.data(), r.scores.size());
  fbs::Offset<fbs::String> nickname = r.nickname ? f.CreateString(*r.nickname) : fbs::Offset<fbs::String>();
  const fb::Uuid key(fbs::span<const std::uint8_t, 16>(reinterpret_cast<const std::uint8_t*>(r.key.bytes.data()), 16));
  return fb::CreateRecord(f, r.id, name, email, home, scores, nickname, static_cast<fb::Status>(r.state), &key,
                          to_ns(r.created), r.balance, r.verified, r.age);
}

fbs::Offset<fb::Doubles> build(builder& b, const doubles& v) {
  return fb::CreateDoubles(b.fbb, b.fbb.CreateVector(v.data(), v.size()));
}

fbs::Offset<fb::Strings> build(builder& b, const strings& v) {
  b.string_offsets.clear();
  for (const std::string& s : v) b.string_offsets.push_back(b.fbb.CreateString(s));
  return fb::CreateStrings(b.fbb, b.fbb.CreateVector(b.string_offsets));
}

fbs::Offset<fb::Records> build(builder& b, const records& v) {
  b.record_offsets.clear();
  for (const record& r : v) b.record_offsets.push_back(build(b, r));
  return fb::CreateRecords(b.fbb, b.fbb.CreateVector(b.record_offsets));
}

// ------------------------------------------------------------------- reading

void assign(std::string& out, const fbs::String* s) {
  if (s == nullptr) {
    out.clear();
  } else {
    out.assign(s->c_str(), s->size());
  }
}

bool read(const fb::Small& m, small& s) {
  s.id = m.id();
  s.stamp = m.stamp();
  s.value = m.value();
  s.flag = m.flag();
  assign(s.name, m.name());
  return true;
}

bool read(const fb::Address& m, address& a) {
  assign(a.street, m.street());
  assign(a.city, m.city());
  a.zip = m.zip();
  a.latitude = m.latitude();
  a.longitude = m.longitude();
  return true;
}

bool read(const fb::Record& m, record& r) {
  r.id = m.id();
  assign(r.name, m.name());
  assign(r.email, m.email());
  if (const fb::Address* home = m.home()) {
    read(*home, r.home);
  } else {
    r.home = {};
  }
  if (const auto* scores = m.scores()) {
    r.scores.assign(scores->data(), scores->data() + scores->size());
  } else {
    r.scores.clear();
  }
  if (const fbs::String* nick = m.nickname()) {
    r.nickname.emplace(nick->c_str(), nick->size());
  } else {
    r.nickname.reset();
  }
  if (m.state() > fb::Status_MAX) return false;
  r.state = static_cast<status>(m.state());
  if (const fb::Uuid* key = m.key()) {
    std::memcpy(r.key.bytes.data(), key->bytes()->Data(), r.key.bytes.size());
  } else {
    r.key = {};
  }
  r.created = from_ns(m.created_ns());
  r.balance = m.balance();
  r.verified = m.verified();
  r.age = m.age();
  return true;
}

bool read(const fb::Doubles& m, doubles& v) {
  if (const auto* values = m.values()) {
    v.assign(values->data(), values->data() + values->size());
  } else {
    v.clear();
  }
  return true;
}

bool read(const fb::Strings& m, strings& v) {
  const auto* values = m.values();
  v.resize(values == nullptr ? 0 : values->size());
  for (fbs::uoffset_t i = 0; i < v.size(); ++i) assign(v[i], values->Get(i));
  return true;
}

bool read(const fb::Records& m, records& v) {
  const auto* values = m.records();
  v.resize(values == nullptr ? 0 : values->size());
  for (fbs::uoffset_t i = 0; i < v.size(); ++i) {
    if (!read(*values->Get(i), v[i])) return false;
  }
  return true;
}

template <class T, class Table>
struct flatbuffers_codec {
  using value_type = T;
  builder b;

  void encode(const T& v) {
    b.fbb.Clear();
    b.fbb.Finish(build(b, v));
  }
  [[nodiscard]] const std::byte* data() const { return reinterpret_cast<const std::byte*>(b.fbb.GetBufferPointer()); }
  [[nodiscard]] std::size_t size() const { return b.fbb.GetSize(); }
  bool decode(std::span<const std::byte> in, T& out) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(in.data());
    fbs::Verifier verifier(bytes, in.size());
    if (!verifier.VerifyBuffer<Table>(nullptr)) return false;
    return read(*fbs::GetRoot<Table>(bytes), out);
  }
};

}  // namespace

void register_flatbuffers() {
  add_codec<flatbuffers_codec<small, fb::Small>>("small", "flatbuffers", get::small_value);
  add_codec<flatbuffers_codec<record, fb::Record>>("record", "flatbuffers", get::record_value);
  add_codec<flatbuffers_codec<doubles, fb::Doubles>>("bulk_doubles", "flatbuffers", get::bulk_doubles);
  add_codec<flatbuffers_codec<strings, fb::Strings>>("bulk_strings", "flatbuffers", get::bulk_strings);
  add_codec<flatbuffers_codec<records, fb::Records>>("many", "flatbuffers", get::many);
}

}  // namespace refwire_bench
