// bench_json's peers: refwire::json, nlohmann-json (its NLOHMANN_DEFINE_TYPE
// macros), RapidJSON (Writer into a StringBuffer; reader: its DOM walked
// into the struct, the document reused), and simdjson's DOM walked into the
// struct (the parser reused). Every peer writes the same JSON text shape
// (enums by name, uuid as text, RFC 3339 timestamps), and every reader
// accepts keys in any order.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <simdjson.h>

#include <refwire/serialization.hpp>
#include <refwire/serialization/detail/wire/time.hpp>

#include "getters.hpp"
#include "harness.hpp"

namespace refwire_bench {

// ------------------------------------------------------------ shared helpers

namespace {

/// "2026-12-01T09:47:29.123456789Z" into out (30 chars): the library's own
/// RFC 3339 formatter, so every peer writes timestamps at the same cost.
void format_timestamp(char* o, refwire::timestamp t) {
  refwire::detail::wire::format_rfc3339(
      o, std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

/// The library's own RFC 3339 parser, likewise.
bool parse_timestamp(std::string_view s, refwire::timestamp& t) {
  std::int64_t ns;
  if (refwire::detail::wire::parse_rfc3339(s, ns) != refwire::detail::wire::rfc3339_status::ok) return false;
  t = refwire::timestamp(std::chrono::duration_cast<refwire::timestamp::duration>(std::chrono::nanoseconds(ns)));
  return true;
}

constexpr std::string_view status_names[] = {"pending", "active", "suspended", "closed"};

bool parse_status(std::string_view s, status& out) {
  for (std::size_t i = 0; i < 4; ++i) {
    if (s == status_names[i]) {
      out = static_cast<status>(i);
      return true;
    }
  }
  return false;
}

template <class T>
struct value_of {
  using type = T;
};

}  // namespace

// ------------------------------------------------------------------ refwire

namespace {

template <class T>
struct refwire_codec {
  using value_type = T;
  std::vector<std::byte> buffer;
  void encode(const T& v) { refwire::serialize<refwire::json>(v, buffer); }
  [[nodiscard]] const std::byte* data() const { return buffer.data(); }
  [[nodiscard]] std::size_t size() const { return buffer.size(); }
  bool decode(std::span<const std::byte> in, T& out) { return !refwire::deserialize<refwire::json>(in, out); }
};

}  // namespace

void register_json_refwire() {
  add_codec<refwire_codec<small>>("small", "refwire", get::small_value);
  add_codec<refwire_codec<record>>("record", "refwire", get::record_value);
  add_codec<refwire_codec<doubles>>("bulk_doubles", "refwire", get::bulk_doubles);
  add_codec<refwire_codec<strings>>("bulk_strings", "refwire", get::bulk_strings);
  add_codec<refwire_codec<records>>("many", "refwire", get::many);
}

std::size_t refwire_encoded_size(std::string_view data_set) {
  const data_sets& d = data();
  if (data_set == "small") return refwire::serialize<refwire::json>(d.small_value).size();
  if (data_set == "record") return refwire::serialize<refwire::json>(d.record_value).size();
  if (data_set == "bulk_doubles") return refwire::serialize<refwire::json>(d.bulk_doubles).size();
  if (data_set == "bulk_strings") return refwire::serialize<refwire::json>(d.bulk_strings).size();
  if (data_set == "many") return refwire::serialize<refwire::json>(d.many).size();
  return 0;
}

}  // namespace refwire_bench

// ----------------------------------------------------------------- nlohmann

namespace nlohmann {
template <>
struct adl_serializer<refwire::uuid> {
  static void to_json(json& j, const refwire::uuid& id) {
    char buf[36];
    id.to_chars(buf);
    j = std::string_view(buf, 36);
  }
  static void from_json(const json& j, refwire::uuid& id) {
    id = refwire::uuid::parse(j.get_ref<const std::string&>()).value();
  }
};
template <>
struct adl_serializer<refwire::timestamp> {
  static void to_json(json& j, const refwire::timestamp& t) {
    char buf[30];
    refwire_bench::format_timestamp(buf, t);
    j = std::string_view(buf, 30);
  }
  static void from_json(const json& j, refwire::timestamp& t) {
    if (!refwire_bench::parse_timestamp(j.get_ref<const std::string&>(), t)) throw std::invalid_argument("timestamp");
  }
};
template <>
struct adl_serializer<std::optional<std::string>> {
  static void to_json(json& j, const std::optional<std::string>& o) {
    if (o) {
      j = *o;
    } else {
      j = nullptr;
    }
  }
  static void from_json(const json& j, std::optional<std::string>& o) {
    if (j.is_null()) {
      o.reset();
    } else {
      o = j.get<std::string>();
    }
  }
};
}  // namespace nlohmann

namespace refwire_bench {

NLOHMANN_JSON_SERIALIZE_ENUM(status, {{status::pending, "pending"},
                                      {status::active, "active"},
                                      {status::suspended, "suspended"},
                                      {status::closed, "closed"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(small, id, stamp, value, flag, name)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(address, street, city, zip, latitude, longitude)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(record, id, name, email, home, scores, nickname, state, key, created, balance,
                                   verified, age)

namespace {

template <class T>
struct nlohmann_codec {
  using value_type = T;
  std::string text;
  void encode(const T& v) {
    const nlohmann::json j = v;
    text = j.dump();
  }
  [[nodiscard]] const std::byte* data() const { return reinterpret_cast<const std::byte*>(text.data()); }
  [[nodiscard]] std::size_t size() const { return text.size(); }
  bool decode(std::span<const std::byte> in, T& out) {
    const auto* p = reinterpret_cast<const char*>(in.data());
    nlohmann::json j = nlohmann::json::parse(p, p + in.size(), nullptr, false);
    if (j.is_discarded()) return false;
    try {
      j.get_to(out);
    } catch (const std::exception&) {
      return false;
    }
    return true;
  }
};

}  // namespace

void register_json_nlohmann() {
  add_codec<nlohmann_codec<small>>("small", "nlohmann", get::small_value);
  add_codec<nlohmann_codec<record>>("record", "nlohmann", get::record_value);
  add_codec<nlohmann_codec<doubles>>("bulk_doubles", "nlohmann", get::bulk_doubles);
  add_codec<nlohmann_codec<strings>>("bulk_strings", "nlohmann", get::bulk_strings);
  add_codec<nlohmann_codec<records>>("many", "nlohmann", get::many);
}

// ---------------------------------------------------------------- RapidJSON

namespace {

using rj_writer = rapidjson::Writer<rapidjson::StringBuffer>;

void rj_write(rj_writer& w, const small& s) {
  w.StartObject();
  w.Key("id");
  w.Int(s.id);
  w.Key("stamp");
  w.Int64(s.stamp);
  w.Key("value");
  w.Double(s.value);
  w.Key("flag");
  w.Bool(s.flag);
  w.Key("name");
  w.String(s.name.data(), static_cast<rapidjson::SizeType>(s.name.size()));
  w.EndObject();
}

void rj_write(rj_writer& w, const address& a) {
  w.StartObject();
  w.Key("street");
  w.String(a.street.data(), static_cast<rapidjson::SizeType>(a.street.size()));
  w.Key("city");
  w.String(a.city.data(), static_cast<rapidjson::SizeType>(a.city.size()));
  w.Key("zip");
  w.Uint(a.zip);
  w.Key("latitude");
  w.Double(a.latitude);
  w.Key("longitude");
  w.Double(a.longitude);
  w.EndObject();
}

void rj_write(rj_writer& w, const record& r) {
  w.StartObject();
  w.Key("id");
  w.Uint64(r.id);
  w.Key("name");
  w.String(r.name.data(), static_cast<rapidjson::SizeType>(r.name.size()));
  w.Key("email");
  w.String(r.email.data(), static_cast<rapidjson::SizeType>(r.email.size()));
  w.Key("home");
  rj_write(w, r.home);
  w.Key("scores");
  w.StartArray();
  for (std::int32_t s : r.scores) w.Int(s);
  w.EndArray();
  w.Key("nickname");
  if (r.nickname) {
    w.String(r.nickname->data(), static_cast<rapidjson::SizeType>(r.nickname->size()));
  } else {
    w.Null();
  }
  w.Key("state");
  const std::string_view st = status_names[static_cast<std::size_t>(r.state)];
  w.String(st.data(), static_cast<rapidjson::SizeType>(st.size()));
  w.Key("key");
  char id[36];
  r.key.to_chars(id);
  w.String(id, 36);
  w.Key("created");
  char ts[30];
  format_timestamp(ts, r.created);
  w.String(ts, 30);
  w.Key("balance");
  w.Double(r.balance);
  w.Key("verified");
  w.Bool(r.verified);
  w.Key("age");
  w.Int(r.age);
  w.EndObject();
}

void rj_write(rj_writer& w, const doubles& v) {
  w.StartArray();
  for (double d : v) w.Double(d);
  w.EndArray();
}

void rj_write(rj_writer& w, const strings& v) {
  w.StartArray();
  for (const std::string& s : v) w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  w.EndArray();
}

void rj_write(rj_writer& w, const records& v) {
  w.StartArray();
  for (const record& r : v) rj_write(w, r);
  w.EndArray();
}

using rj_value = rapidjson::Value;

inline std::string_view sv(const rj_value& v) { return {v.GetString(), v.GetStringLength()}; }

bool rj_read(const rj_value& j, small& s) {
  if (!j.IsObject()) return false;
  for (const auto& m : j.GetObject()) {
    const std::string_view k = sv(m.name);
    const rj_value& v = m.value;
    if (k == "id") {
      if (!v.IsInt()) return false;
      s.id = v.GetInt();
    } else if (k == "stamp") {
      if (!v.IsInt64()) return false;
      s.stamp = v.GetInt64();
    } else if (k == "value") {
      if (!v.IsNumber()) return false;
      s.value = v.GetDouble();
    } else if (k == "flag") {
      if (!v.IsBool()) return false;
      s.flag = v.GetBool();
    } else if (k == "name") {
      if (!v.IsString()) return false;
      s.name.assign(v.GetString(), v.GetStringLength());
    }
  }
  return true;
}

bool rj_read(const rj_value& j, address& a) {
  if (!j.IsObject()) return false;
  for (const auto& m : j.GetObject()) {
    const std::string_view k = sv(m.name);
    const rj_value& v = m.value;
    if (k == "street") {
      if (!v.IsString()) return false;
      a.street.assign(v.GetString(), v.GetStringLength());
    } else if (k == "city") {
      if (!v.IsString()) return false;
      a.city.assign(v.GetString(), v.GetStringLength());
    } else if (k == "zip") {
      if (!v.IsUint()) return false;
      a.zip = v.GetUint();
    } else if (k == "latitude") {
      if (!v.IsNumber()) return false;
      a.latitude = v.GetDouble();
    } else if (k == "longitude") {
      if (!v.IsNumber()) return false;
      a.longitude = v.GetDouble();
    }
  }
  return true;
}

bool rj_read(const rj_value& j, record& r) {
  if (!j.IsObject()) return false;
  for (const auto& m : j.GetObject()) {
    const std::string_view k = sv(m.name);
    const rj_value& v = m.value;
    if (k == "id") {
      if (!v.IsUint64()) return false;
      r.id = v.GetUint64();
    } else if (k == "name") {
      if (!v.IsString()) return false;
      r.name.assign(v.GetString(), v.GetStringLength());
    } else if (k == "email") {
      if (!v.IsString()) return false;
      r.email.assign(v.GetString(), v.GetStringLength());
    } else if (k == "home") {
      if (!rj_read(v, r.home)) return false;
    } else if (k == "scores") {
      if (!v.IsArray()) return false;
      r.scores.clear();
      r.scores.reserve(v.Size());
      for (const auto& e : v.GetArray()) {
        if (!e.IsInt()) return false;
        r.scores.push_back(e.GetInt());
      }
    } else if (k == "nickname") {
      if (v.IsNull()) {
        r.nickname.reset();
      } else if (v.IsString()) {
        r.nickname.emplace(v.GetString(), v.GetStringLength());
      } else {
        return false;
      }
    } else if (k == "state") {
      if (!v.IsString() || !parse_status(sv(v), r.state)) return false;
    } else if (k == "key") {
      if (!v.IsString()) return false;
      const auto id = refwire::uuid::parse(sv(v));
      if (!id) return false;
      r.key = *id;
    } else if (k == "created") {
      if (!v.IsString() || !parse_timestamp(sv(v), r.created)) return false;
    } else if (k == "balance") {
      if (!v.IsNumber()) return false;
      r.balance = v.GetDouble();
    } else if (k == "verified") {
      if (!v.IsBool()) return false;
      r.verified = v.GetBool();
    } else if (k == "age") {
      if (!v.IsInt()) return false;
      r.age = v.GetInt();
    }
  }
  return true;
}

bool rj_read(const rj_value& j, doubles& out) {
  if (!j.IsArray()) return false;
  out.clear();
  out.reserve(j.Size());
  for (const auto& e : j.GetArray()) {
    if (!e.IsNumber()) return false;
    out.push_back(e.GetDouble());
  }
  return true;
}

bool rj_read(const rj_value& j, strings& out) {
  if (!j.IsArray()) return false;
  out.clear();
  out.reserve(j.Size());
  for (const auto& e : j.GetArray()) {
    if (!e.IsString()) return false;
    out.emplace_back(e.GetString(), e.GetStringLength());
  }
  return true;
}

bool rj_read(const rj_value& j, records& out) {
  if (!j.IsArray()) return false;
  out.clear();
  out.resize(j.Size());
  std::size_t i = 0;
  for (const auto& e : j.GetArray()) {
    if (!rj_read(e, out[i++])) return false;
  }
  return true;
}

template <class T>
struct rapidjson_codec {
  using value_type = T;
  rapidjson::StringBuffer buffer;
  rapidjson::Document doc;
  void encode(const T& v) {
    buffer.Clear();
    rj_writer w(buffer);
    rj_write(w, v);
  }
  [[nodiscard]] const std::byte* data() const { return reinterpret_cast<const std::byte*>(buffer.GetString()); }
  [[nodiscard]] std::size_t size() const { return buffer.GetSize(); }
  bool decode(std::span<const std::byte> in, T& out) {
    doc.Parse<rapidjson::kParseFullPrecisionFlag | rapidjson::kParseValidateEncodingFlag>(
        reinterpret_cast<const char*>(in.data()), in.size());
    if (doc.HasParseError()) return false;
    return rj_read(doc, out);
  }
};

}  // namespace

void register_json_rapidjson() {
  add_codec<rapidjson_codec<small>>("small", "rapidjson", get::small_value);
  add_codec<rapidjson_codec<record>>("record", "rapidjson", get::record_value);
  add_codec<rapidjson_codec<doubles>>("bulk_doubles", "rapidjson", get::bulk_doubles);
  add_codec<rapidjson_codec<strings>>("bulk_strings", "rapidjson", get::bulk_strings);
  add_codec<rapidjson_codec<records>>("many", "rapidjson", get::many);
}

// ----------------------------------------------------------- simdjson DOM

namespace {

using sj_element = simdjson::dom::element;

bool sj_read(sj_element j, small& s) {
  simdjson::dom::object obj;
  if (j.get(obj)) return false;
  for (auto [k, v] : obj) {
    if (k == "id") {
      std::int64_t x;
      if (v.get(x)) return false;
      s.id = static_cast<std::int32_t>(x);
    } else if (k == "stamp") {
      if (v.get(s.stamp)) return false;
    } else if (k == "value") {
      if (v.get(s.value)) return false;
    } else if (k == "flag") {
      if (v.get(s.flag)) return false;
    } else if (k == "name") {
      std::string_view x;
      if (v.get(x)) return false;
      s.name.assign(x);
    }
  }
  return true;
}

bool sj_read(sj_element j, address& a) {
  simdjson::dom::object obj;
  if (j.get(obj)) return false;
  for (auto [k, v] : obj) {
    std::string_view x;
    if (k == "street") {
      if (v.get(x)) return false;
      a.street.assign(x);
    } else if (k == "city") {
      if (v.get(x)) return false;
      a.city.assign(x);
    } else if (k == "zip") {
      std::uint64_t z;
      if (v.get(z)) return false;
      a.zip = static_cast<std::uint32_t>(z);
    } else if (k == "latitude") {
      if (v.get(a.latitude)) return false;
    } else if (k == "longitude") {
      if (v.get(a.longitude)) return false;
    }
  }
  return true;
}

bool sj_read(sj_element j, record& r) {
  simdjson::dom::object obj;
  if (j.get(obj)) return false;
  for (auto [k, v] : obj) {
    std::string_view x;
    if (k == "id") {
      if (v.get(r.id)) return false;
    } else if (k == "name") {
      if (v.get(x)) return false;
      r.name.assign(x);
    } else if (k == "email") {
      if (v.get(x)) return false;
      r.email.assign(x);
    } else if (k == "home") {
      if (!sj_read(v, r.home)) return false;
    } else if (k == "scores") {
      simdjson::dom::array arr;
      if (v.get(arr)) return false;
      r.scores.clear();
      r.scores.reserve(arr.size());
      for (auto e : arr) {
        std::int64_t s;
        if (e.get(s)) return false;
        r.scores.push_back(static_cast<std::int32_t>(s));
      }
    } else if (k == "nickname") {
      if (v.is_null()) {
        r.nickname.reset();
      } else {
        if (v.get(x)) return false;
        r.nickname.emplace(x);
      }
    } else if (k == "state") {
      if (v.get(x) || !parse_status(x, r.state)) return false;
    } else if (k == "key") {
      if (v.get(x)) return false;
      const auto id = refwire::uuid::parse(x);
      if (!id) return false;
      r.key = *id;
    } else if (k == "created") {
      if (v.get(x) || !parse_timestamp(x, r.created)) return false;
    } else if (k == "balance") {
      if (v.get(r.balance)) return false;
    } else if (k == "verified") {
      if (v.get(r.verified)) return false;
    } else if (k == "age") {
      std::int64_t a;
      if (v.get(a)) return false;
      r.age = static_cast<std::int32_t>(a);
    }
  }
  return true;
}

bool sj_read(sj_element j, doubles& out) {
  simdjson::dom::array arr;
  if (j.get(arr)) return false;
  out.clear();
  out.reserve(arr.size());
  for (auto e : arr) {
    double d;
    if (e.get(d)) return false;
    out.push_back(d);
  }
  return true;
}

bool sj_read(sj_element j, strings& out) {
  simdjson::dom::array arr;
  if (j.get(arr)) return false;
  out.clear();
  out.reserve(arr.size());
  for (auto e : arr) {
    std::string_view x;
    if (e.get(x)) return false;
    out.emplace_back(x);
  }
  return true;
}

bool sj_read(sj_element j, records& out) {
  simdjson::dom::array arr;
  if (j.get(arr)) return false;
  out.clear();
  out.resize(arr.size());
  std::size_t i = 0;
  for (auto e : arr) {
    if (!sj_read(e, out[i++])) return false;
  }
  return true;
}

/// simdjson has no serializer of structs: encode with refwire (not timed as a peer).
template <class T>
struct simdjson_codec {
  using value_type = T;
  std::vector<std::byte> buffer;
  simdjson::dom::parser parser;
  void encode(const T& v) { refwire::serialize<refwire::json>(v, buffer); }
  [[nodiscard]] const std::byte* data() const { return buffer.data(); }
  [[nodiscard]] std::size_t size() const { return buffer.size(); }
  bool decode(std::span<const std::byte> in, T& out) {
    sj_element root;
    // realloc_if_needed: the caller's bytes are not padded, so simdjson copies them.
    if (parser.parse(reinterpret_cast<const char*>(in.data()), in.size(), true).get(root)) return false;
    return sj_read(root, out);
  }
};

}  // namespace

void register_json_simdjson() {
  add_codec<simdjson_codec<small>>("small", "simdjson_dom", get::small_value);
  add_codec<simdjson_codec<record>>("record", "simdjson_dom", get::record_value);
  add_codec<simdjson_codec<doubles>>("bulk_doubles", "simdjson_dom", get::bulk_doubles);
  add_codec<simdjson_codec<strings>>("bulk_strings", "simdjson_dom", get::bulk_strings);
  add_codec<simdjson_codec<records>>("many", "simdjson_dom", get::many);
}

}  // namespace refwire_bench
