// libFuzzer target for raw_json and json_value (json_value.hpp).
//
// The first byte picks what the rest is: 0 a json_value in JSON, 1 a struct
// with a raw_json and a json_value in JSON, 2 a json_value in binary, 3 the
// struct in protobuf. A decode must fail cleanly or give a value that
// encodes (compact and pretty) to text that decodes to the same value.
//
//   fuzz_json_value -max_len=1024 <scratch dir>
#include <refwire/serialization.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

namespace fuzz_value {

struct doc {
  refwire::raw_json raw;
  refwire::json_value value;
};
BOOST_DESCRIBE_STRUCT(doc, (), (raw, value))

const refwire::decode_options options{.max_depth = 64, .max_elements = 1 << 16, .max_alloc_bytes = 1 << 24};

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz_json_value: %s %s\n", what, detail.c_str());
  std::abort();
}

std::string_view trimmed(std::string_view s) {
  auto ws = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  return s;
}

template <class F, class T>
void again(const T& v) {
  for (const bool pretty : {false, true}) {
    const std::vector<std::byte> bytes = refwire::serialize<F>(v, {.pretty = pretty});
    T back{};
    const refwire::error e = refwire::deserialize<F>(bytes, back, options);
    if (e) die("re-encoded value does not decode:", e.message());
    if constexpr (std::is_same_v<T, refwire::json_value>) {
      if (!(back == v)) die("re-encoded value differs");
    } else {
      if (!(back.value == v.value)) die("re-encoded json_value differs");
      // raw_json comes back as its text without the whitespace around it
      // (an empty one was written as null).
      if (!(trimmed(back.raw.text) == trimmed(v.raw.text)) && !(v.raw.text.empty() && back.raw.text == "null")) {
        die("re-encoded raw_json differs:", back.raw.text);
      }
    }
  }
}

template <class F, class T>
void run(std::span<const std::byte> in) {
  T v{};
  const refwire::error e = refwire::deserialize<F>(in, v, options);
  if (e) {
    if (e.offset() > in.size()) die("error offset past the input", e.message());
    return;
  }
  again<F>(v);
  again<refwire::json>(v);
  again<refwire::binary>(v);
}

}  // namespace fuzz_value

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  using namespace fuzz_value;
  switch (data[0] % 4) {
    case 0: run<refwire::json, refwire::json_value>(in); break;
    case 1: run<refwire::json, doc>(in); break;
    case 2: run<refwire::binary, refwire::json_value>(in); break;
    default: run<refwire::protobuf, doc>(in); break;
  }
  return 0;
}
