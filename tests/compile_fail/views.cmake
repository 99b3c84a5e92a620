# Views (std::string_view, std::span<const std::byte>): decoded only by
# deserialize_view; every other decode path is one error naming the field and
# deserialize_view. Included from CMakeLists.txt (refwire_field_regex, refwire_compile_fail_checks).
set(string_view_copy "refwire: std::string_view fields point into the input: decode this type with refwire::deserialize_view \\(the input must outlive the value\\)")
set(byte_view_copy "refwire: std::span<const std::byte> fields point into the input: decode this type with refwire::deserialize_view \\(the input must outlive the value\\)")
refwire_field_regex(view_label_field label)
refwire_compile_fail_checks(field_string_view.cpp
  REQUIRE "${string_view_copy}" "field_check<entry, [^\n]*${view_label_field}[^,]*, std::basic_string_view<char" MAX_ERRORS 1)
refwire_field_regex(view_bytes_field bytes)
refwire_compile_fail_checks(field_span.cpp
  REQUIRE "${byte_view_copy}" "field_check<packet, [^\n]*${view_bytes_field}[^,]*, std::span<const std::byte" MAX_ERRORS 1)
refwire_field_regex(view_words_field words)
refwire_field_regex(view_in_field in)
refwire_compile_fail_checks(view_deserialize.cpp
  REQUIRE "${string_view_copy}"
          "field_check<inner, [^\n]*${view_words_field}[^,]*, std::vector<std::basic_string_view<char[^\n]*via<[^\n]*at<outer, [^\n]*${view_in_field}[^,]*, inner"
  MAX_ERRORS 1)
refwire_field_regex(view_payload_field payload)
refwire_compile_fail_checks(view_deserialize_nothrow.cpp
  REQUIRE "${byte_view_copy}" "field_check<frame, [^\n]*${view_payload_field}[^,]*, std::optional<std::span<const std::byte" MAX_ERRORS 1)
refwire_compile_fail_checks(view_deserialize_lz4.cpp
  REQUIRE "${string_view_copy}" "field_check<entry, [^\n]*${view_label_field}[^,]*, std::basic_string_view<char" MAX_ERRORS 1)
refwire_compile_fail_checks(view_load_snapshot.cpp
  REQUIRE "${string_view_copy}" "field_check<entry, [^\n]*${view_label_field}[^,]*, std::basic_string_view<char" MAX_ERRORS 1)
refwire_field_regex(view_body_field body)
refwire_compile_fail_checks(view_json_span.cpp
  REQUIRE "refwire: deserialize_view<json>: a std::span<const std::byte> cannot be a view into JSON input \\(JSON holds bytes as base64 text, decoded into new storage\\): use std::vector<std::byte>"
          "field_check<packet, [^\n]*${view_body_field}[^,]*, std::span<const std::byte" MAX_ERRORS 1)
refwire_compile_fail_checks(view_temporary.cpp
  REQUIRE "refwire: deserialize_view: the input is a temporary that is destroyed at the end of the statement, so the views would dangle: keep the bytes in a variable that outlives the value"
  MAX_ERRORS 1)
refwire_field_regex(view_values_field values)
refwire_compile_fail_checks(view_other_span.cpp
  REQUIRE "refwire: this view is not serializable \\(only std::string_view and std::span<const std::byte> are, decoded with refwire::deserialize_view\\): use std::string / std::vector"
          "field_check<samples, [^\n]*${view_values_field}[^,]*, std::span<const int" MAX_ERRORS 1)
refwire_compile_fail_checks(view_wrong_order.cpp
  REQUIRE "refwire: deserialize_view: the throwing form is deserialize_view<T, Format>\\(bytes\\), the non-throwing form is deserialize_view<Format>\\(bytes, value\\)"
  MAX_ERRORS 1)
