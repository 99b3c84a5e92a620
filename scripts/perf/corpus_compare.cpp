// corpus_compare.cpp: every fuzz-corpus file of a refwire checkout, plus a
// fixed set of deterministic mutations of each, decoded the way the matching
// fuzz target (tests/fuzz/fuzz_<format>.cpp) decodes it, one line per
// (input, entry point):
//
//   <format>/<file> <TAB> <variant> <TAB> <type> <TAB> <entry> <TAB> <result>
//
//   variant: orig | trunc:<len> | set:<pos>:<byte hex> | flip:<pos>:<bit>
//   result:  accept [used=<n>] bin=<fnv1a-64 of serialize<binary>(value)>/<size> [<format's own re-encoding hashes>]
//            reject <errc name> <error.message()> [used=<n>]
//            reject <snapshot_errc>/<errc> file=<file> <what()>   (snapshot)
//            threw-decode_error <errc name> <what()> | threw <what()> | threw unknown   (exceptions)
//            skip ...                                             (empty input; json's plain type)
//   (lz4 inputs: decompress / decompress_prefix lines give out=<hash>/<size> of
//   the decompressed bytes, and a recompression round trip.)
//
// The mutations: truncation to every shorter length for files of up to 256
// bytes (larger files: 64 evenly spaced lengths and the last 16), then 100
// byte changes and 100 bit flips, seeded from "<format>/<file>".
//
// Values with unordered containers are copied into ordered ones first, so the
// hashes do not depend on hash-table iteration order. Messages are printed
// with bytes outside 0x20-0x7e (and the backslash) as \xNN.
//
// Only the public API and tests/fuzz/fuzz_types.hpp, so the same source
// builds against older and newer revisions (corpus-compare.sh, next to this
// file, builds and runs it).
//
//   corpus_compare <repo>/tests/fuzz/corpus > out.txt
#include "fuzz_types.hpp"

#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cc {

// ------------------------------------------------------------------ helpers

std::uint64_t fnv1a(const void* p, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= b[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}
std::string hex64(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}
std::string hash_of(std::span<const std::byte> b) { return hex64(fnv1a(b.data(), b.size())) + "/" + std::to_string(b.size()); }
std::string hash_of(std::string_view s) { return hex64(fnv1a(s.data(), s.size())) + "/" + std::to_string(s.size()); }

std::string printable(std::string_view s) {
  std::string out;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += ch;
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

std::string reject(const refwire::error& e) {
  return "reject " + std::string(refwire::to_string(e.code())) + " " + printable(e.message());
}

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// ------------------------------------------------- canonical (ordered) values

struct unordered_sorted {
  std::map<std::string, std::int32_t> m;
  std::set<std::int64_t> s;
  std::map<std::int32_t, std::vector<std::string>> nested;
};
BOOST_DESCRIBE_STRUCT(unordered_sorted, (), (m, s, nested))

template <class T>
const T& canonical(const T& v) {
  return v;
}
unordered_sorted canonical(const fuzz::unordered& v) {
  unordered_sorted c;
  c.m.insert(v.m.begin(), v.m.end());
  c.s.insert(v.s.begin(), v.s.end());
  c.nested.insert(v.nested.begin(), v.nested.end());
  return c;
}

template <class T>
std::string bin_hash(const T& v) {
  try {
    return "bin=" + hash_of(refwire::serialize<refwire::binary>(canonical(v)));
  } catch (const std::exception& e) {
    return "bin=threw:" + printable(e.what());
  }
}

enum class fmt { binary, json, protobuf };

/// The format's own re-encoding of an accepted value (what the fuzz target re-encodes).
template <fmt F, class T>
std::string own_hashes(const T& v) {
  if constexpr (F == fmt::json) {
    std::string out;
    try {
      out += " json=" + hash_of(refwire::to_json(canonical(v)));
    } catch (const std::exception& e) {
      out += " json=threw:" + printable(e.what());
    }
    try {
      out += " pretty=" + hash_of(refwire::to_json(canonical(v), {.pretty = true}));
    } catch (const std::exception& e) {
      out += " pretty=threw:" + printable(e.what());
    }
    return out;
  } else if constexpr (F == fmt::protobuf) {
    try {
      return " pb=" + hash_of(refwire::serialize<refwire::protobuf>(canonical(v)));
    } catch (const std::exception& e) {
      return " pb=threw:" + printable(e.what());
    }
  } else {
    return "";
  }
}

// ---------------------------------------------------------------- the output

std::string g_input;    // "<format>/<file>"
std::string g_variant;  // "orig", "trunc:12", ...

void line(std::string_view type, std::string_view entry, const std::string& result) {
  std::printf("%s\t%s\t%.*s\t%.*s\t%s\n", g_input.c_str(), g_variant.c_str(), static_cast<int>(type.size()), type.data(),
              static_cast<int>(entry.size()), entry.data(), result.c_str());
}

template <class Fn>
std::string guarded(Fn&& fn) {
  try {
    return fn();
  } catch (const refwire::decode_error& e) {
    return "threw-decode_error " + std::string(refwire::to_string(e.code())) + " " + printable(e.what());
  } catch (const std::exception& e) {
    return "threw " + printable(e.what());
  } catch (...) {
    return "threw unknown";
  }
}

// ------------------------------------------ binary, json, protobuf (fuzz_*.cpp)

template <fmt F>
struct format_of;
template <>
struct format_of<fmt::binary> {
  using type = refwire::binary;
};
template <>
struct format_of<fmt::json> {
  using type = refwire::json;
};
template <>
struct format_of<fmt::protobuf> {
  using type = refwire::protobuf;
};

/// fuzz_binary / fuzz_json / fuzz_protobuf's run<T>: the non-throwing, the
/// prefix and the throwing entry points with fuzz_options; as extras, a
/// non-throwing decode with tight limits (max_depth 3, max_elements 3,
/// max_alloc_bytes 48) and, for json and protobuf, one with the strict options
/// (reject_unknown_fields, require_all_fields).
template <fmt F, class T>
void run_typed(std::string_view type, std::span<const std::byte> in) {
  using Format = typename format_of<F>::type;
  const refwire::decode_options& o = fuzz::fuzz_options;

  line(type, "full", guarded([&] {
         T whole{};
         const refwire::error e = refwire::deserialize<Format>(in, whole, o);
         if (e) return reject(e);
         return "accept " + bin_hash(whole) + own_hashes<F>(whole);
       }));
  line(type, "prefix", guarded([&] {
         T v{};
         std::size_t used = 0;
         const refwire::error e = refwire::deserialize_prefix<Format>(in, v, used, o);
         if (e) return reject(e) + " used=" + std::to_string(used);
         return "accept used=" + std::to_string(used) + " " + bin_hash(v);
       }));
  line(type, "throwing", [&]() -> std::string {
    try {
      const T v = refwire::deserialize<T, Format>(in, o);
      return "accept " + bin_hash(v);
    } catch (const refwire::decode_error& e) {
      return "reject " + std::string(refwire::to_string(e.code())) + " " + printable(e.what());
    } catch (const std::exception& e) {
      return "threw " + printable(e.what());
    }
  }());
  // Extra (no fuzz target does this): tight limits, so that the depth,
  // element and allocation limit paths and their messages are exercised too.
  line(type, "tight", guarded([&] {
         refwire::decode_options tight = o;
         tight.max_depth = 3;
         tight.max_elements = 3;
         tight.max_alloc_bytes = 48;
         T v{};
         const refwire::error e = refwire::deserialize<Format>(in, v, tight);
         if (e) return reject(e);
         return "accept " + bin_hash(v);
       }));
  if constexpr (F != fmt::binary) {
    refwire::decode_options strict = o;
    strict.reject_unknown_fields = true;
    strict.require_all_fields = true;
    line(type, "strict", guarded([&] {
           T v{};
           const refwire::error e = refwire::deserialize<Format>(in, v, strict);
           if (e) return reject(e);
           return "accept " + bin_hash(v);
         }));
  }
}

template <fmt F>
void run_selected(std::span<const std::byte> data) {
  if (data.empty()) {
    line("-", "-", "skip empty input");
    return;
  }
  const std::span<const std::byte> in = data.subspan(1);
  using fuzz::kind;
  switch (static_cast<kind>(static_cast<unsigned>(data[0]) % fuzz::type_count)) {
    case kind::point: run_typed<F, fuzz::point>("point", in); break;
    case kind::order: run_typed<F, fuzz::order>("order", in); break;
    case kind::node: run_typed<F, fuzz::node>("node", in); break;
    case kind::chain: run_typed<F, fuzz::chain>("chain", in); break;
    case kind::flags: run_typed<F, fuzz::flags>("flags", in); break;
    case kind::ordered_shapes: run_typed<F, fuzz::ordered_shapes>("ordered_shapes", in); break;
    case kind::plain:
      if constexpr (F == fmt::json) {
        line("plain", "-", "skip (positional only, as fuzz_json)");
      } else {
        run_typed<F, fuzz::plain>("plain", in);
      }
      break;
    case kind::string_map: run_typed<F, fuzz::string_map>("string_map", in); break;
    case kind::string_set: run_typed<F, fuzz::string_set>("string_set", in); break;
    case kind::empties: run_typed<F, fuzz::empties>("empties", in); break;
    case kind::mixed_tuple: run_typed<F, fuzz::mixed_tuple>("mixed_tuple", in); break;
    case kind::unordered: run_typed<F, fuzz::unordered>("unordered", in); break;
    case kind::count: break;
  }
}

// ------------------------------------------------------------- fuzz_lz4.cpp

void run_lz4(std::span<const std::byte> in) {
  refwire::decode_options o = fuzz::fuzz_options;
  o.max_alloc_bytes = std::uint64_t{1} << 20;
  o.compression = refwire::compression::lz4;

  line("bytes", "decompress", guarded([&] {
         std::vector<std::byte> whole;
         const refwire::error e = refwire::decompress(in, whole, o);
         if (e) return reject(e) + " out=" + std::to_string(whole.size());
         return "accept out=" + hash_of(whole);
       }));
  line("bytes", "decompress_prefix", guarded([&] {
         std::vector<std::byte> pre;
         std::size_t used = 0;
         const refwire::error e = refwire::decompress(in, pre, o, &used);
         if (e) return reject(e) + " used=" + std::to_string(used);
         std::string r = "accept used=" + std::to_string(used) + " out=" + hash_of(pre);
         std::vector<std::byte> again;
         refwire::compress(pre, again, {.compression_threshold = 0});
         r += " recompressed=" + hash_of(again);
         std::vector<std::byte> back;
         if (const refwire::error e2 = refwire::decompress(again, back, o)) {
           r += " redecompress=" + reject(e2);
         } else {
           r += back == pre ? " roundtrip=same" : " roundtrip=DIFFERS";
         }
         return r;
       }));
  line("order", "deserialize", guarded([&] {
         fuzz::order v;
         const refwire::error e = refwire::deserialize<refwire::binary>(in, v, o);
         if (e) return reject(e);
         return "accept " + bin_hash(v);
       }));
}

// -------------------------------------------------------- fuzz_snapshot.cpp

constexpr std::size_t header_size = 36;

void put_le(std::vector<std::byte>& b, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i, v >>= 8) b[at + i] = static_cast<std::byte>(v & 0xff);
}

void reseal(std::vector<std::byte>& b) {
  if (b.size() < header_size + 8) return;
  const std::size_t length = b.size() - header_size - 8;
  put_le(b, 20, length);
  put_le(b, 28, XXH3_64bits(b.data(), 28));
  put_le(b, header_size + length, XXH3_64bits(b.data() + header_size, length));
}

template <class T>
std::string snapshot_typed(const std::vector<std::byte>& in) {
  refwire::decode_options o = fuzz::fuzz_options;
  o.max_alloc_bytes = std::uint64_t{1} << 20;
  T v{};
  try {
    v = refwire::decode_snapshot<T>(in, o);
  } catch (const refwire::snapshot_error& e) {
    return "reject " + std::string(refwire::to_string(e.kind())) + "/" + std::string(refwire::to_string(e.code())) +
           " file=" + printable(e.file()) + " " + printable(e.what());
  } catch (const refwire::decode_error& e) {
    return "threw-decode_error " + std::string(refwire::to_string(e.code())) + " " + printable(e.what());
  } catch (const std::exception& e) {
    return "threw " + printable(e.what());
  }
  std::string r = "accept " + bin_hash(v);
  try {
    const auto compression = static_cast<refwire::compression>(static_cast<std::uint8_t>(in[11]) & 3);
    r += " snapshot=" + hash_of(refwire::encode_snapshot(v, {.compression = compression}));
  } catch (const std::exception& e) {
    r += " snapshot=threw:" + printable(e.what());
  }
  return r;
}

void run_snapshot(std::span<const std::byte> data) {
  if (data.empty()) {
    line("-", "-", "skip empty input");
    return;
  }
  std::vector<std::byte> in(data.begin() + 1, data.end());
  const auto mode = static_cast<unsigned>(data[0]);
  if ((mode & 1U) != 0) reseal(in);
  if ((mode & 2U) != 0) {
    line("node", "decode_snapshot", snapshot_typed<fuzz::node>(in));
  } else {
    line("order", "decode_snapshot", snapshot_typed<fuzz::order>(in));
  }
}

// ---------------------------------------------------------------- the inputs

void run_one(std::string_view format, std::span<const std::byte> in) {
  if (format == "binary") {
    run_selected<fmt::binary>(in);
  } else if (format == "json") {
    run_selected<fmt::json>(in);
  } else if (format == "protobuf") {
    run_selected<fmt::protobuf>(in);
  } else if (format == "lz4") {
    run_lz4(in);
  } else if (format == "snapshot") {
    run_snapshot(in);
  }
}

constexpr std::size_t byte_sets = 100;
constexpr std::size_t bit_flips = 100;
constexpr std::size_t full_truncation_limit = 256;

/// The original, its truncations (every length up to 256 bytes; above that,
/// 64 evenly spaced lengths and the last 16), then seeded byte changes and bit flips.
void run_file(std::string_view format, const std::string& name, const std::vector<std::byte>& bytes) {
  g_input = std::string(format) + "/" + name;
  g_variant = "orig";
  run_one(format, bytes);

  std::set<std::size_t> lengths;
  if (bytes.size() <= full_truncation_limit) {
    for (std::size_t n = 0; n < bytes.size(); ++n) lengths.insert(n);
  } else {
    for (std::size_t i = 0; i < 64; ++i) lengths.insert(i * bytes.size() / 64);
    for (std::size_t n = bytes.size() - 16; n < bytes.size(); ++n) lengths.insert(n);
  }
  for (std::size_t n : lengths) {
    g_variant = "trunc:" + std::to_string(n);
    run_one(format, std::span<const std::byte>(bytes).first(n));
  }
  if (bytes.empty()) return;

  // The seed depends on the format and the file name only.
  const std::string key = g_input;
  std::uint64_t seed = fnv1a(key.data(), key.size());
  static constexpr unsigned char interesting[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xff, 0xfe, '"', '\\', '{', '}',
                                                  '[',  ']',  ',',  ':',  '0',  '9',  '-', 'e', 'n',  ' '};
  for (std::size_t i = 0; i < byte_sets; ++i) {
    std::vector<std::byte> m = bytes;
    const std::size_t pos = static_cast<std::size_t>(splitmix(seed) % m.size());
    const std::uint64_t r = splitmix(seed);
    const unsigned char value = (r & 3) == 0 ? interesting[(r >> 8) % sizeof interesting]
                                             : static_cast<unsigned char>((r >> 16) & 0xff);
    m[pos] = static_cast<std::byte>(value);
    char buf[64];
    std::snprintf(buf, sizeof buf, "set:%zu:%02x", pos, value);
    g_variant = buf;
    run_one(format, m);
  }
  for (std::size_t i = 0; i < bit_flips; ++i) {
    std::vector<std::byte> m = bytes;
    const std::size_t pos = static_cast<std::size_t>(splitmix(seed) % m.size());
    const unsigned bit = static_cast<unsigned>(splitmix(seed) % 8);
    m[pos] ^= static_cast<std::byte>(1U << bit);
    g_variant = "flip:" + std::to_string(pos) + ":" + std::to_string(bit);
    run_one(format, m);
  }
}

}  // namespace cc

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <repo>/tests/fuzz/corpus\n", argv[0]);
    return 1;
  }
  const std::filesystem::path root = argv[1];
  for (const char* format : {"binary", "json", "protobuf", "lz4", "snapshot"}) {
    const std::filesystem::path dir = root / format;
    if (!std::filesystem::is_directory(dir)) {
      std::printf("%s\t-\t-\t-\tmissing directory\n", format);
      continue;
    }
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.is_regular_file()) names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      std::ifstream f(dir / name, std::ios::binary);
      const std::vector<char> raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      std::vector<std::byte> bytes(raw.size());
      std::transform(raw.begin(), raw.end(), bytes.begin(), [](char c) { return static_cast<std::byte>(c); });
      cc::run_file(format, name, bytes);
    }
  }
  std::fflush(stdout);
  return 0;
}
