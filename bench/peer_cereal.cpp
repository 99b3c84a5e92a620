// cereal's binary archive (header only).
//
// Encode: a BinaryOutputArchive over a reused std::ostream whose streambuf
// appends to a reused byte buffer. Decode: a BinaryInputArchive over a reused
// std::istream reading the bytes in place, into a fresh struct. cereal's binary
// archive checks only that the input does not run out.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <ostream>
#include <span>
#include <streambuf>
#include <vector>

#include <cereal/archives/binary.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include "getters.hpp"
#include "harness.hpp"

// Types refwire_bench does not own: found by cereal through the archive's namespace.
namespace cereal {

template <class Archive>
void save(Archive& ar, const refwire::timestamp& t) {
  ar(static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count()));
}

template <class Archive>
void load(Archive& ar, refwire::timestamp& t) {
  std::int64_t ns = 0;
  ar(ns);
  t = refwire::timestamp(std::chrono::duration_cast<refwire::timestamp::duration>(std::chrono::nanoseconds(ns)));
}

template <class Archive>
void serialize(Archive& ar, refwire::uuid& id) {
  ar(cereal::binary_data(id.bytes.data(), id.bytes.size()));
}

}  // namespace cereal

namespace refwire_bench {

template <class Archive>
static void serialize(Archive& ar, small& s) {
  ar(s.id, s.stamp, s.value, s.flag, s.name);
}

template <class Archive>
static void serialize(Archive& ar, address& a) {
  ar(a.street, a.city, a.zip, a.latitude, a.longitude);
}

template <class Archive>
static void serialize(Archive& ar, record& r) {
  ar(r.id, r.name, r.email, r.home, r.scores, r.nickname, r.state, r.key, r.created, r.balance, r.verified, r.age);
}

namespace {

/// A streambuf that appends to a byte buffer it keeps (its capacity survives reset()).
class buffer_sink : public std::streambuf {
 public:
  void reset() noexcept { used_ = 0; }
  [[nodiscard]] const std::byte* data() const noexcept { return storage_.data(); }
  [[nodiscard]] std::size_t size() const noexcept { return used_; }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const auto count = static_cast<std::size_t>(n);
    if (storage_.size() - used_ < count) storage_.resize(std::max(storage_.size() * 2, used_ + count));
    std::memcpy(storage_.data() + used_, s, count);
    used_ += count;
    return n;
  }
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    xsputn(&ch, 1);
    return c;
  }

 private:
  std::vector<std::byte> storage_;
  std::size_t used_ = 0;
};

/// A streambuf reading a byte span in place.
class span_source : public std::streambuf {
 public:
  void reset(std::span<const std::byte> in) {
    char* p = const_cast<char*>(reinterpret_cast<const char*>(in.data()));
    setg(p, p, p + in.size());
  }
};

template <class T>
struct cereal_codec {
  using value_type = T;
  buffer_sink sink;
  std::ostream out{&sink};
  span_source source;
  std::istream in{&source};

  void encode(const T& v) {
    sink.reset();
    cereal::BinaryOutputArchive archive(out);
    archive(v);
  }
  [[nodiscard]] const std::byte* data() const { return sink.data(); }
  [[nodiscard]] std::size_t size() const { return sink.size(); }
  bool decode(std::span<const std::byte> bytes, T& value) {
    source.reset(bytes);
    in.clear();
    try {
      cereal::BinaryInputArchive archive(in);
      archive(value);
    } catch (const cereal::Exception&) {
      return false;
    }
    return in.rdbuf()->in_avail() == 0;  // the value must span the whole input
  }
};

}  // namespace

void register_cereal() {
  add_codec<cereal_codec<small>>("small", "cereal", get::small_value);
  add_codec<cereal_codec<record>>("record", "cereal", get::record_value);
  add_codec<cereal_codec<doubles>>("bulk_doubles", "cereal", get::bulk_doubles);
  add_codec<cereal_codec<strings>>("bulk_strings", "cereal", get::bulk_strings);
  add_codec<cereal_codec<records>>("many", "cereal", get::many);
}

}  // namespace refwire_bench
