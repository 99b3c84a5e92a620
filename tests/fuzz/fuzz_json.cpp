// libFuzzer target for the JSON decoder.
//
// The first byte picks the type (fuzz_types.hpp; the PFR-only `plain` has no
// JSON form and is skipped) and, divided by the type count, the JSON options
// (0: none; 1: camelCase keys; 2: variants by name; 3: kebab-case keys and
// internally tagged variants; encoding uses the same ones, with an indent of
// 3 and short arrays on one line when pretty); the rest is decoded as JSON with the
// non-throwing, the prefix and the throwing entry points, which must agree.
// When a decode succeeds, the value is encoded again (compact and pretty);
// that text must decode, and encoding the result must give the same compact
// text (a fixed point; unordered containers are compared by value).
//
//   fuzz_json -max_len=1024 <scratch dir> tests/fuzz/corpus/json
#include "fuzz_types.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz_json: %s %s\n", what, detail.c_str());
  std::abort();
}

bool only_whitespace(std::span<const std::byte> rest) {
  for (std::byte b : rest) {
    const auto c = static_cast<char>(b);
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return false;
  }
  return true;
}

/// The decode and encode options of mode m (the first byte / the type count).
struct mode_options {
  refwire::decode_options decode;
  refwire::encode_options encode;
  refwire::encode_options pretty;
};

mode_options options_for(unsigned m) {
  mode_options o{fuzz::fuzz_options, {}, {.pretty = true}};
  if (m == 0) return o;
  switch (m) {
    case 1: o.decode.naming = o.encode.naming = refwire::naming::camel_case; break;
    case 2: o.decode.variants = o.encode.variants = refwire::variant_form::by_name; break;
    default:
      o.decode.naming = o.encode.naming = refwire::naming::kebab_case;
      o.decode.variants = o.encode.variants = refwire::variant_form::internally_tagged;
  }
  o.pretty = o.encode;
  o.pretty.pretty = true;
  o.pretty.indent = 3;
  o.pretty.short_array_width = 40;
  return o;
}

template <class T, bool ByValue>
void run(std::span<const std::byte> in, unsigned mode) {
  const mode_options mo = options_for(mode);
  const refwire::decode_options& o = mo.decode;

  T whole{};
  const refwire::error full = refwire::deserialize<refwire::json>(in, whole, o);
  T v{};
  std::size_t used = 0;
  const refwire::error pre = refwire::deserialize_prefix<refwire::json>(in, v, used, o);

  if (full) {
    if (full.offset() > in.size()) die("error offset past the input", full.message());
    if (full.line() == 0 || full.column() == 0) die("no line and column", full.message());
    {
      // The line and column of the offset, recounted: lines end at '\n', columns count UTF-8 characters.
      std::size_t line = 1, column = 1;
      const auto* b = reinterpret_cast<const unsigned char*>(in.data());
      const std::size_t start = in.size() >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF && full.offset() >= 3 ? 3 : 0;
      for (std::size_t i = start; i < full.offset(); ++i) {
        if (b[i] == '\n') {
          ++line;
          column = 1;
        } else if ((b[i] & 0xC0) != 0x80) {
          ++column;
        }
      }
      if (line != full.line() || column != full.column()) die("wrong line or column", full.message());
    }
    if (full.message() != full.path() + ": " + full.reason() + ", at offset " + std::to_string(full.offset()) +
                              " (line " + std::to_string(full.line()) + ", column " + std::to_string(full.column()) + ")") {
      die("malformed message", full.message());
    }
    try {
      (void)refwire::deserialize<T, refwire::json>(in, o);
      die("throwing deserialize did not throw", full.message());
    } catch (const refwire::decode_error& e) {
      if (full.message() != e.what()) die("decode_error::what differs", e.what());
    }
    // A prefix decode parses only the first value, so it may succeed where the
    // whole input fails (trailing content; or invalid UTF-8, an unterminated
    // string, ... after the value: simdjson checks those over the whole input).
  } else {
    if (pre) die("full decode succeeded, prefix decode failed", pre.message());
    if (used > in.size() || !only_whitespace(in.subspan(used))) die("prefix consumed a different extent");
  }
  if (pre) {
    if (used != 0) die("consumed set on failure");
    return;
  }

  std::string text;
  try {
    text = refwire::to_json(v, mo.encode);
  } catch (const refwire::encode_error& e) {
    // Only an option can make a decoded value unwritable: a per-call
    // internally tagged form meets a variant holding a non-struct alternative
    // the input left at its default.
    if (mode == 0) die("a decoded value does not encode", e.what());
    return;
  }
  T w{};
  if (refwire::error e = refwire::deserialize<refwire::json>(text, w, o)) die("re-encoding does not decode", e.message() + " " + text);
  const std::string pretty = refwire::to_json(v, mo.pretty);
  T p{};
  if (refwire::error e = refwire::deserialize<refwire::json>(pretty, p, o)) die("pretty text does not decode", e.message());
  if constexpr (ByValue) {
    if (!(w == v) || !(p == v)) die("re-decoded value differs", text);
  } else {
    if (refwire::to_json(w, mo.encode) != text) die("re-encoding is not a fixed point", text);
    if (refwire::to_json(p, mo.encode) != text) die("pretty text decodes differently", text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data) + 1, size - 1);
  using fuzz::kind;
  const unsigned mode = (data[0] / fuzz::type_count) % 4;
  switch (static_cast<kind>(data[0] % fuzz::type_count)) {
    case kind::point: run<fuzz::point, false>(in, mode); break;
    case kind::order: run<fuzz::order, false>(in, mode); break;
    case kind::node: run<fuzz::node, false>(in, mode); break;
    case kind::chain: run<fuzz::chain, false>(in, mode); break;
    case kind::flags: run<fuzz::flags, false>(in, mode); break;
    case kind::ordered_shapes: run<fuzz::ordered_shapes, false>(in, mode); break;
    case kind::plain: break;  // positional only
    case kind::string_map: run<fuzz::string_map, false>(in, mode); break;
    case kind::string_set: run<fuzz::string_set, false>(in, mode); break;
    case kind::empties: run<fuzz::empties, false>(in, mode); break;
    case kind::mixed_tuple: run<fuzz::mixed_tuple, false>(in, mode); break;
    case kind::unordered: run<fuzz::unordered, true>(in, mode); break;
    case kind::std_types: run<fuzz::std_types, true>(in, mode); break;
    case kind::count: break;
  }
  return 0;
}
