// The JSON decoder's out-of-line parts that need no simdjson: failures at
// the cursor and the templates' failure helpers, skipping an unknown field's
// value, base64, and the wording of a rejected timestamp.
#include <refwire/serialization/json.hpp>
#include <refwire/serialization/detail/core/path.hpp>

#include <array>
#include <charconv>
#include <string>
#include <vector>

namespace refwire::detail::json {

// ------------------------------------------------------ cursor failures

bool fail(reader& r, errc code, std::string reason) { return record_failure(r, code, r.offset(), std::move(reason)); }

bool fail_expected(reader& r, std::string_view what) {
  const std::size_t at = r.offset();
  value_kind k;
  if (!r.kind(k)) return false;
  return record_failure(r, errc::type_mismatch, at,
                        "expected " + std::string(what) + ", got " + std::string(kind_name(k)));
}

bool fail_depth(reader& r) { return fail_depth_at(r, r.offset()); }
bool fail_elements(reader& r, std::uint64_t count) { return fail_elements_at(r, r.offset(), count); }
bool fail_alloc(reader& r, std::uint64_t bytes) { return fail_alloc_at(r, r.offset(), bytes); }

refwire::error make_error(reader& r) {
  if (!r.failed) return refwire::error(errc::invalid_json, 0, "$", "decode failed");
  return detail::make_error(r);
}

// ------------------------------------------------------- template failures

bool fail_range(reader& r, std::string_view value, std::string_view type) {
  return record_failure(r, errc::invalid_value, r.value_at,
                        std::string(value) + " is out of range for " + std::string(type));
}

bool fail_float_range(reader& r, double value) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, value);
  return fail_range(r, std::string_view(buf, static_cast<std::size_t>(res.ptr - buf)), "f32");
}

bool fail_count(reader& r, std::string_view what, std::size_t need, std::size_t got) {
  return fail(r, errc::invalid_value,
              std::string(what) + " needs " + std::to_string(need) + " elements, got " +
                  (got > need ? "more" : std::to_string(got)));
}

bool fail_unknown_field(reader& r, std::string_view key) {
  return fail(r, errc::unknown_field, "unknown field " + quote_key(key));
}

bool fail_duplicate_field(reader& r, std::string_view key) {
  return fail(r, errc::duplicate_key, "duplicate field " + quote_key(key));
}

bool fail_missing_field(reader& r, std::string_view name) {
  return fail(r, errc::missing_field, "missing field " + quote_key(name));
}

bool fail_text(reader& r, errc code, std::string_view what, std::string_view text) {
  return record_failure(r, code, r.value_at, "invalid " + std::string(what) + " " + quote_key(text));
}

bool skip_value(reader& r) {
  value_kind k;
  if (!r.kind(k)) return false;
  switch (k) {
    case value_kind::object: {
      if (r.depth_left == 0) return fail_depth(r);
      if (!r.begin_object()) return false;
      depth_scope scope(r);
      std::string_view key;
      int n;
      while ((n = r.next_key(key)) == 1) {
        if (!skip_value(r)) return false;
      }
      return n == 0;
    }
    case value_kind::array: {
      if (r.depth_left == 0) return fail_depth(r);
      if (!r.begin_array()) return false;
      depth_scope scope(r);
      int n;
      while ((n = r.next_element()) == 1) {
        if (!skip_value(r)) return false;
      }
      return n == 0;
    }
    case value_kind::string: {
      std::string_view s;
      return r.get_string(s);
    }
    case value_kind::number: {
      double d;
      return r.get_double(d);
    }
    case value_kind::boolean: {
      bool b;
      return r.get_bool(b);
    }
    case value_kind::null:
      return r.is_null() == 1 || (r.failed ? false : fail(r, errc::invalid_json, "invalid literal (expected null)"));
  }
  return false;
}

// ------------------------------------------------------------------ base64

bool base64_decode(std::string_view text, std::vector<std::byte>& out, std::string& why) {
  static constexpr auto table = [] {
    std::array<signed char, 256> t{};
    for (auto& x : t) x = -1;
    const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(a[i])] = static_cast<signed char>(i);
    return t;
  }();
  out.clear();
  if (text.size() % 4 != 0) {
    why = "invalid base64: length " + std::to_string(text.size()) + " is not a multiple of 4";
    return false;
  }
  if (text.empty()) return true;
  std::size_t pad = 0;
  if (text.back() == '=') pad = text[text.size() - 2] == '=' ? 2 : 1;
  out.resize(text.size() / 4 * 3 - pad);
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t o = 0;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int a = table[p[i]];
    const int b = table[p[i + 1]];
    const int c = last && pad == 2 ? 0 : table[p[i + 2]];
    const int d = last && pad >= 1 ? 0 : table[p[i + 3]];
    if (a < 0 || b < 0 || c < 0 || d < 0) {
      why = "invalid base64 character at index " + std::to_string(i);
      out.clear();
      return false;
    }
    const std::uint32_t v = (static_cast<std::uint32_t>(a) << 18) | (static_cast<std::uint32_t>(b) << 12) |
                            (static_cast<std::uint32_t>(c) << 6) | static_cast<std::uint32_t>(d);
    if (last && pad != 0) {
      if ((pad == 2 && (v & 0xFFFF) != 0) || (pad == 1 && (v & 0xFF) != 0)) {
        why = "invalid base64: non-zero bits in the padding";
        out.clear();
        return false;
      }
    }
    out[o++] = static_cast<std::byte>(v >> 16);
    if (o < out.size()) out[o++] = static_cast<std::byte>((v >> 8) & 0xFF);
    if (o < out.size() && !(last && pad == 1)) out[o++] = static_cast<std::byte>(v & 0xFF);
  }
  return true;
}

// -------------------------------------------------------------- timestamps

bool fail_timestamp(reader& r, std::string_view text, wire::rfc3339_status why) {
  std::string_view what = "expected YYYY-MM-DDTHH:MM:SS";
  switch (why) {
    case wire::rfc3339_status::ok:
    case wire::rfc3339_status::bad_form: break;
    case wire::rfc3339_status::no_such_date: what = "no such date"; break;
    case wire::rfc3339_status::no_such_time: what = "no such time of day"; break;
    case wire::rfc3339_status::long_fraction: what = "more than 9 fraction digits"; break;
    case wire::rfc3339_status::empty_fraction: what = "empty fraction"; break;
    case wire::rfc3339_status::bad_offset: what = "bad offset"; break;
    case wire::rfc3339_status::no_offset: what = "missing Z or offset"; break;
    case wire::rfc3339_status::trailing: what = "trailing characters"; break;
    case wire::rfc3339_status::out_of_range: what = "outside the int64 nanosecond range"; break;
  }
  return record_failure(r, errc::invalid_value, r.value_at,
                        "invalid RFC 3339 timestamp " + quote_key(text) + " (" + std::string(what) + ")");
}

}  // namespace refwire::detail::json
