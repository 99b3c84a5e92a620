#pragma once
// bench/pb_io.hpp: the benchmark structs written and read by hand with
// protobuf's own io and wire-format helpers (no generated message in
// between), the best case of building refwire's protobuf format on
// libprotobuf instead of its own varint code:
//   encode  sizes from WireFormatLite::*Size, then WireFormatLite::Write*ToArray
//           and CodedOutputStream::Write*ToArray into a resized buffer;
//   decode  io::CodedInputStream: ReadTag, ReadVarint*, ReadLittleEndian64,
//           WireFormatLite::ReadString, PushLimit / PopLimit for nested messages
//           and the packed scores, WireFormatLite::SkipField for anything else.
// String fields are checked for UTF-8 both ways (internal::IsStructurallyValidUTF8),
// as refwire and protoc's proto3 code do: encode throws, decode fails.
// Each function knows its message's fields; bench_protobuf checks that the
// bytes equal refwire's before it times them.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/common.h>
#include <google/protobuf/wire_format_lite.h>

#include "datasets.hpp"

namespace refwire_bench::pb_io {

using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;
using wfl = google::protobuf::internal::WireFormatLite;

inline constexpr std::uint32_t tag(int field, wfl::WireType w) {
  return (static_cast<std::uint32_t>(field) << 3) | static_cast<std::uint32_t>(w);
}
inline std::size_t tag_size(int field) { return field < 16 ? 1 : 2; }

/// google.protobuf.Timestamp of a timestamp: seconds and nanos in [0, 1e9).
inline void split(refwire::timestamp t, std::int64_t& s, std::int32_t& n) {
  const std::int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  s = ns / 1'000'000'000;
  std::int64_t r = ns % 1'000'000'000;
  if (r < 0) {
    r += 1'000'000'000;
    --s;
  }
  n = static_cast<std::int32_t>(r);
}

inline bool utf8(const std::string& s) {
  return google::protobuf::internal::IsStructurallyValidUTF8(s.data(), static_cast<int>(s.size()));
}
/// A string field, tag and all, after its UTF-8 check.
inline std::uint8_t* write_text(int field, const std::string& s, std::uint8_t* p) {
  if (!utf8(s)) throw std::invalid_argument("pb_io: a string field is not UTF-8");
  return wfl::WriteStringToArray(field, s, p);
}
inline bool read_text(CodedInputStream& in, std::string& s) { return wfl::ReadString(&in, &s) && utf8(s); }

// ------------------------------------------------------------------ sizes

inline std::size_t body_size(const small& v) {
  std::size_t n = 0;
  if (v.id != 0) n += 1 + wfl::Int32Size(v.id);
  if (v.stamp != 0) n += 1 + wfl::Int64Size(v.stamp);
  if (v.value != 0 || std::signbit(v.value)) n += 1 + wfl::kDoubleSize;
  if (v.flag) n += 1 + wfl::kBoolSize;
  if (!v.name.empty()) n += 1 + wfl::StringSize(v.name);
  return n;
}

inline std::size_t body_size(const address& v) {
  std::size_t n = 0;
  if (!v.street.empty()) n += 1 + wfl::StringSize(v.street);
  if (!v.city.empty()) n += 1 + wfl::StringSize(v.city);
  if (v.zip != 0) n += 1 + wfl::UInt32Size(v.zip);
  if (v.latitude != 0 || std::signbit(v.latitude)) n += 1 + wfl::kDoubleSize;
  if (v.longitude != 0 || std::signbit(v.longitude)) n += 1 + wfl::kDoubleSize;
  return n;
}

inline std::size_t scores_size(const std::vector<std::int32_t>& v) {
  std::size_t n = 0;
  for (std::int32_t x : v) n += wfl::Int32Size(x);
  return n;
}

inline std::size_t timestamp_size(std::int64_t s, std::int32_t ns) {
  return (s != 0 ? 1 + wfl::Int64Size(s) : 0) + (ns != 0 ? 1 + wfl::Int32Size(ns) : 0);
}

inline std::size_t body_size(const record& v) {
  std::size_t n = 0;
  if (v.id != 0) n += 1 + wfl::UInt64Size(v.id);
  if (!v.name.empty()) n += 1 + wfl::StringSize(v.name);
  if (!v.email.empty()) n += 1 + wfl::StringSize(v.email);
  n += 1 + wfl::LengthDelimitedSize(body_size(v.home));
  if (!v.scores.empty()) n += 1 + wfl::LengthDelimitedSize(scores_size(v.scores));
  if (v.nickname) n += 1 + wfl::StringSize(*v.nickname);
  if (v.state != status::pending) n += 1 + wfl::EnumSize(static_cast<int>(v.state));
  n += 1 + wfl::LengthDelimitedSize(v.key.bytes.size());
  std::int64_t s;
  std::int32_t ns;
  split(v.created, s, ns);
  n += 1 + wfl::LengthDelimitedSize(timestamp_size(s, ns));
  if (v.balance != 0 || std::signbit(v.balance)) n += 1 + wfl::kDoubleSize;
  if (v.verified) n += 1 + wfl::kBoolSize;
  if (v.age != 0) n += 1 + wfl::Int32Size(v.age);
  return n;
}

// ----------------------------------------------------------------- encode

inline std::uint8_t* write(const small& v, std::uint8_t* p) {
  if (v.id != 0) p = wfl::WriteInt32ToArray(1, v.id, p);
  if (v.stamp != 0) p = wfl::WriteInt64ToArray(2, v.stamp, p);
  if (v.value != 0 || std::signbit(v.value)) p = wfl::WriteDoubleToArray(3, v.value, p);
  if (v.flag) p = wfl::WriteBoolToArray(4, v.flag, p);
  if (!v.name.empty()) p = write_text(5, v.name, p);
  return p;
}

inline std::uint8_t* write(const address& v, std::uint8_t* p) {
  if (!v.street.empty()) p = write_text(1, v.street, p);
  if (!v.city.empty()) p = write_text(2, v.city, p);
  if (v.zip != 0) p = wfl::WriteUInt32ToArray(3, v.zip, p);
  if (v.latitude != 0 || std::signbit(v.latitude)) p = wfl::WriteDoubleToArray(4, v.latitude, p);
  if (v.longitude != 0 || std::signbit(v.longitude)) p = wfl::WriteDoubleToArray(5, v.longitude, p);
  return p;
}

inline std::uint8_t* write(const record& v, std::uint8_t* p) {
  if (v.id != 0) p = wfl::WriteUInt64ToArray(1, v.id, p);
  if (!v.name.empty()) p = write_text(2, v.name, p);
  if (!v.email.empty()) p = write_text(3, v.email, p);
  p = wfl::WriteTagToArray(4, wfl::WIRETYPE_LENGTH_DELIMITED, p);
  p = CodedOutputStream::WriteVarint32ToArray(static_cast<std::uint32_t>(body_size(v.home)), p);
  p = write(v.home, p);
  if (!v.scores.empty()) {
    p = wfl::WriteTagToArray(5, wfl::WIRETYPE_LENGTH_DELIMITED, p);
    p = CodedOutputStream::WriteVarint32ToArray(static_cast<std::uint32_t>(scores_size(v.scores)), p);
    for (std::int32_t x : v.scores) p = wfl::WriteInt32NoTagToArray(x, p);
  }
  if (v.nickname) p = write_text(6, *v.nickname, p);
  if (v.state != status::pending) p = wfl::WriteEnumToArray(7, static_cast<int>(v.state), p);
  p = wfl::WriteTagToArray(8, wfl::WIRETYPE_LENGTH_DELIMITED, p);
  p = CodedOutputStream::WriteVarint32ToArray(static_cast<std::uint32_t>(v.key.bytes.size()), p);
  p = CodedOutputStream::WriteRawToArray(v.key.bytes.data(), static_cast<int>(v.key.bytes.size()), p);
  std::int64_t s;
  std::int32_t ns;
  split(v.created, s, ns);
  p = wfl::WriteTagToArray(9, wfl::WIRETYPE_LENGTH_DELIMITED, p);
  p = CodedOutputStream::WriteVarint32ToArray(static_cast<std::uint32_t>(timestamp_size(s, ns)), p);
  if (s != 0) p = wfl::WriteInt64ToArray(1, s, p);
  if (ns != 0) p = wfl::WriteInt32ToArray(2, ns, p);
  if (v.balance != 0 || std::signbit(v.balance)) p = wfl::WriteDoubleToArray(10, v.balance, p);
  if (v.verified) p = wfl::WriteBoolToArray(11, v.verified, p);
  if (v.age != 0) p = wfl::WriteInt32ToArray(12, v.age, p);
  return p;
}

inline std::uint8_t* write(const records& v, std::uint8_t* p) {
  for (const record& r : v) {
    p = wfl::WriteTagToArray(1, wfl::WIRETYPE_LENGTH_DELIMITED, p);
    p = CodedOutputStream::WriteVarint32ToArray(static_cast<std::uint32_t>(body_size(r)), p);
    p = write(r, p);
  }
  return p;
}

inline std::size_t body_size(const records& v) {
  std::size_t n = 0;
  for (const record& r : v) n += 1 + wfl::LengthDelimitedSize(body_size(r));
  return n;
}

inline std::size_t body_size(const doubles& v) {
  return v.empty() ? 0 : 1 + wfl::LengthDelimitedSize(v.size() * wfl::kDoubleSize);
}

inline std::uint8_t* write(const doubles& v, std::uint8_t* p) {
  if (v.empty()) return p;
  p = wfl::WriteTagToArray(1, wfl::WIRETYPE_LENGTH_DELIMITED, p);
  p = CodedOutputStream::WriteVarint32ToArray(static_cast<std::uint32_t>(v.size() * wfl::kDoubleSize), p);
  return CodedOutputStream::WriteRawToArray(v.data(), static_cast<int>(v.size() * wfl::kDoubleSize), p);
}

inline std::size_t body_size(const strings& v) {
  std::size_t n = 0;
  for (const std::string& s : v) n += 1 + wfl::StringSize(s);
  return n;
}

inline std::uint8_t* write(const strings& v, std::uint8_t* p) {
  for (const std::string& s : v) p = write_text(1, s, p);
  return p;
}

/// v's message into out (resized to exactly its size).
template <class T>
void encode(const T& v, std::vector<std::byte>& out) {
  out.resize(body_size(v));
  write(v, reinterpret_cast<std::uint8_t*>(out.data()));
}

// ----------------------------------------------------------------- decode

inline bool read_double(CodedInputStream& in, double& d) {
  std::uint64_t bits;
  if (!in.ReadLittleEndian64(&bits)) return false;
  std::memcpy(&d, &bits, sizeof d);
  return true;
}

/// Reads one length-delimited body with f(in), under a pushed limit.
template <class F>
bool nested(CodedInputStream& in, F&& f) {
  std::uint32_t len;
  if (!in.ReadVarint32(&len)) return false;
  const auto limit = in.PushLimit(static_cast<int>(len));
  const bool ok = f() && in.BytesUntilLimit() == 0;  // a zero tag ends the loop early
  in.PopLimit(limit);
  return ok;
}

inline bool read(CodedInputStream& in, small& v) {
  while (const std::uint32_t t = in.ReadTag()) {
    std::uint64_t u;
    switch (t) {
      case tag(1, wfl::WIRETYPE_VARINT):
        if (!in.ReadVarint64(&u)) return false;
        v.id = static_cast<std::int32_t>(u);
        break;
      case tag(2, wfl::WIRETYPE_VARINT):
        if (!in.ReadVarint64(&u)) return false;
        v.stamp = static_cast<std::int64_t>(u);
        break;
      case tag(3, wfl::WIRETYPE_FIXED64):
        if (!read_double(in, v.value)) return false;
        break;
      case tag(4, wfl::WIRETYPE_VARINT):
        if (!in.ReadVarint64(&u)) return false;
        v.flag = u != 0;
        break;
      case tag(5, wfl::WIRETYPE_LENGTH_DELIMITED):
        if (!read_text(in, v.name)) return false;
        break;
      default:
        if (!wfl::SkipField(&in, t)) return false;
    }
  }
  return true;
}

inline bool read(CodedInputStream& in, address& v) {
  while (const std::uint32_t t = in.ReadTag()) {
    std::uint32_t u;
    switch (t) {
      case tag(1, wfl::WIRETYPE_LENGTH_DELIMITED):
        if (!read_text(in, v.street)) return false;
        break;
      case tag(2, wfl::WIRETYPE_LENGTH_DELIMITED):
        if (!read_text(in, v.city)) return false;
        break;
      case tag(3, wfl::WIRETYPE_VARINT):
        if (!in.ReadVarint32(&u)) return false;
        v.zip = u;
        break;
      case tag(4, wfl::WIRETYPE_FIXED64):
        if (!read_double(in, v.latitude)) return false;
        break;
      case tag(5, wfl::WIRETYPE_FIXED64):
        if (!read_double(in, v.longitude)) return false;
        break;
      default:
        if (!wfl::SkipField(&in, t)) return false;
    }
  }
  return true;
}

inline bool read_timestamp(CodedInputStream& in, refwire::timestamp& ts) {
  std::int64_t s = 0;
  std::int32_t n = 0;
  while (const std::uint32_t t = in.ReadTag()) {
    std::uint64_t u;
    switch (t) {
      case tag(1, wfl::WIRETYPE_VARINT):
        if (!in.ReadVarint64(&u)) return false;
        s = static_cast<std::int64_t>(u);
        break;
      case tag(2, wfl::WIRETYPE_VARINT):
        if (!in.ReadVarint64(&u)) return false;
        n = static_cast<std::int32_t>(u);
        break;
      default:
        if (!wfl::SkipField(&in, t)) return false;
    }
  }
  ts = refwire::timestamp(std::chrono::duration_cast<refwire::timestamp::duration>(
      std::chrono::nanoseconds(s * 1'000'000'000 + n)));
  return true;
}

inline bool read(CodedInputStream& in, record& v) {
  while (const std::uint32_t t = in.ReadTag()) {
    std::uint64_t u;
    switch (t) {
      case tag(1, wfl::WIRETYPE_VARINT):
        if (!in.ReadVarint64(&v.id)) return false;
        break;
      case tag(2, wfl::WIRETYPE_LENGTH_DELIMITED):
        if (!read_text(in, v.name)) return false;
        break;
      case tag(3, wfl::WIRETYPE_LENGTH_DELIMITED):
        if (!read_text(in, v.email)) return false;
        break;
      case tag(4, wfl::WIRETYPE_LENGTH_DELIMITED):
        if (!nested(in, [&] { return read(in, v.home); })) return false;
        break;
      case tag(5, wfl::WIRETYPE_LENGTH_DELIMITED):
        if (!nested(in, [&] {
              while (in.BytesUntilLimit() > 0) {
                if (!in.ReadVarint64(&u)) return false;
                v.scores.push_back(static_cast<std::int32_t>(u));
              }
              return true;
            }))
          return false;
        break;
      case tag(5, wfl::WIRETYPE_VARINT):  // an unpacked element
        if (!in.ReadVarint64(&u)) return false;
        v.scores.push_back(static_cast<std::int32_t>(u));
        break;
      case tag(6, wfl::WIRETYPE_LENGTH_DELIMITED):
        if (!read_text(in, v.nickname.emplace())) return false;
        break;
      case tag(7, wfl::WIRETYPE_VARINT):
        if (!in.ReadVarint64(&u) || u > 3) return false;
        v.state = static_cast<status>(u);
        break;
      case tag(8, wfl::WIRETYPE_LENGTH_DELIMITED): {
        std::uint32_t len;
        if (!in.ReadVarint32(&len) || len != v.key.bytes.size() ||
            !in.ReadRaw(v.key.bytes.data(), static_cast<int>(len)))
          return false;
        break;
      }
      case tag(9, wfl::WIRETYPE_LENGTH_DELIMITED):
        if (!nested(in, [&] { return read_timestamp(in, v.created); })) return false;
        break;
      case tag(10, wfl::WIRETYPE_FIXED64):
        if (!read_double(in, v.balance)) return false;
        break;
      case tag(11, wfl::WIRETYPE_VARINT):
        if (!in.ReadVarint64(&u)) return false;
        v.verified = u != 0;
        break;
      case tag(12, wfl::WIRETYPE_VARINT):
        if (!in.ReadVarint64(&u)) return false;
        v.age = static_cast<std::int32_t>(u);
        break;
      default:
        if (!wfl::SkipField(&in, t)) return false;
    }
  }
  return true;
}

inline bool read(CodedInputStream& in, records& v) {
  while (const std::uint32_t t = in.ReadTag()) {
    if (t != tag(1, wfl::WIRETYPE_LENGTH_DELIMITED)) {
      if (!wfl::SkipField(&in, t)) return false;
      continue;
    }
    record& r = v.emplace_back();
    if (!nested(in, [&] { return read(in, r); })) return false;
  }
  return true;
}

inline bool read(CodedInputStream& in, doubles& v) {
  while (const std::uint32_t t = in.ReadTag()) {
    if (t == tag(1, wfl::WIRETYPE_LENGTH_DELIMITED)) {
      std::uint32_t len;
      const void* rest = nullptr;
      int left = 0;
      if (!in.ReadVarint32(&len) || len % wfl::kDoubleSize != 0) return false;
      if (len != 0 && (!in.GetDirectBufferPointer(&rest, &left) || len > static_cast<std::uint32_t>(left))) return false;
      const std::size_t old = v.size();
      v.resize(old + len / wfl::kDoubleSize);
      if (!in.ReadRaw(v.data() + old, static_cast<int>(len))) return false;
    } else if (t == tag(1, wfl::WIRETYPE_FIXED64)) {
      if (!read_double(in, v.emplace_back())) return false;
    } else if (!wfl::SkipField(&in, t)) {
      return false;
    }
  }
  return true;
}

inline bool read(CodedInputStream& in, strings& v) {
  while (const std::uint32_t t = in.ReadTag()) {
    if (t == tag(1, wfl::WIRETYPE_LENGTH_DELIMITED)) {
      if (!read_text(in, v.emplace_back())) return false;
    } else if (!wfl::SkipField(&in, t)) {
      return false;
    }
  }
  return true;
}

/// Bytes into a fresh (default) value; false on malformed input.
template <class T>
bool decode(std::span<const std::byte> bytes, T& out) {
  CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  return read(in, out) && in.ConsumedEntireMessage();
}

}  // namespace refwire_bench::pb_io
