// libFuzzer target for refwire::deserialize_view, differential against the
// copying decode: the first byte picks the format (fuzz_views_types.hpp), the
// rest is decoded as a struct of views with deserialize_view and as its
// owning twin with deserialize. They must agree:
//   - both fail with the same message, or both succeed; except in JSON, where
//     a string with an escape fails the view decode alone (invalid_value at a
//     backslash of the input);
//   - on success every view points inside the input, and the view struct
//     encodes to exactly the owning twin's bytes (every field equal);
//   - the throwing form throws the same message.
// Any disagreement aborts.
//
//   fuzz_views -max_len=512 <a scratch dir> corpus/views
#include "fuzz_views_types.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace {

using namespace fuzz_views;

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz_views: %s %s\n", what, detail.c_str());
  std::abort();
}

void expect_inside(std::span<const std::byte> in, const void* p, std::size_t n) {
  const auto* b = static_cast<const std::byte*>(p);
  if (n != 0 && (b < in.data() || b + n > in.data() + in.size())) die("a view points outside the input");
}

void expect_inside(std::span<const std::byte> in, std::string_view s) { expect_inside(in, s.data(), s.size()); }
void expect_inside(std::span<const std::byte> in, std::span<const std::byte> s) {
  expect_inside(in, s.data(), s.size());
}

void check_views(std::span<const std::byte> in, const record_view& v) {
  expect_inside(in, v.name);
  for (std::string_view w : v.words) expect_inside(in, w);
  if (v.note) expect_inside(in, *v.note);
  for (const auto& [k, n] : v.counts) expect_inside(in, k);
  for (const auto& p : v.parts) {
    expect_inside(in, p.tag);
    expect_inside(in, p.data);
  }
  expect_inside(in, v.blob);
}

void check_views(std::span<const std::byte> in, const text_view& v) {
  expect_inside(in, v.name);
  for (std::string_view w : v.words) expect_inside(in, w);
  if (v.note) expect_inside(in, *v.note);
  for (const auto& [k, n] : v.counts) expect_inside(in, k);
}

template <class F, class Own, class View>
void run(std::span<const std::byte> in) {
  Own own;
  View view;
  const refwire::error copied = refwire::deserialize<F>(in, own, options);
  const refwire::error viewed = refwire::deserialize_view<F>(in, view, options);
  try {
    (void)refwire::deserialize_view<View, F>(in, options);
    if (viewed) die("throwing deserialize_view did not throw", viewed.message());
  } catch (const refwire::decode_error& e) {
    if (!viewed || viewed.message() != e.what()) die("decode_error::what differs", e.what());
  }
  if (viewed) {
    if (viewed.offset() > in.size()) die("error offset past the input", viewed.message());
    if constexpr (std::is_same_v<F, refwire::json>) {
      if (viewed.reason() == "string has escapes and cannot be a view into the input (use std::string)") {
        if (viewed.code() != refwire::errc::invalid_value || viewed.offset() >= in.size() ||
            in[viewed.offset()] != std::byte{'\\'}) {
          die("an escape reported away from a backslash", viewed.message());
        }
        // The copy reads the same values in the same order: it succeeds, or
        // fails at or after the escape.
        if (copied && copied.offset() < viewed.offset()) die("the copy failed before the view", copied.message());
        return;
      }
    }
    if (!copied || copied.message() != viewed.message()) {
      die("the view decode failed alone or otherwise", viewed.message() + " / " + (copied ? copied.message() : "ok"));
    }
    return;
  }
  if (copied) die("the copy failed, the view decode did not", copied.message());
  check_views(in, view);
  if (refwire::serialize<F>(view) != refwire::serialize<F>(own)) die("the views encode differently from the copy");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: run<refwire::binary, record_own, record_view>(in); break;
    case 1: run<refwire::protobuf, record_own, record_view>(in); break;
    default: run<refwire::json, text_own, text_view>(in); break;
  }
  return 0;
}
