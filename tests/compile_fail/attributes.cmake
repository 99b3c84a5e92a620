# Attribute declarations and their checks: misplaced declarations, member
# names, wire-name collisions, protobuf numbers. An error about one member or
# number names it: g++ in the template argument of the class whose
# static_assert fires, clang in the argument of the call that stops the
# constant evaluation; each regex accepts either.
set(_rw_ns "must be written in the namespace that declares T .it is found by argument-dependent lookup.; here it would be ignored")
refwire_compile_fail(attributes_misplaced.cpp "refwire: REFWIRE_ATTRIBUTES.T, .... ${_rw_ns}")
refwire_compile_fail(attributes_misplaced_global_type.cpp "refwire: REFWIRE_ATTRIBUTES.T, .... ${_rw_ns}")
refwire_compile_fail(attributes_misplaced_nested.cpp "refwire: REFWIRE_ATTRIBUTES.T, .... ${_rw_ns}")
refwire_compile_fail(name_misplaced.cpp "refwire: REFWIRE_NAME.T, .?\"Name.?\". ${_rw_ns}")
refwire_compile_fail(type_attributes_misplaced.cpp "refwire: REFWIRE_TYPE_ATTRIBUTES.T, .... ${_rw_ns}")
# A second declaration elsewhere, while the right one exists, is an error too.
refwire_compile_fail_checks(attributes_misplaced_second.cpp REQUIRE "refwire: REFWIRE_ATTRIBUTES.T, .... ${_rw_ns}" MAX_ERRORS 1)
refwire_compile_fail_checks(name_misplaced_second.cpp REQUIRE "refwire: REFWIRE_NAME.T, .?\"Name.?\". ${_rw_ns}" MAX_ERRORS 1)
refwire_compile_fail_checks(type_attributes_misplaced_second.cpp
  REQUIRE "refwire: REFWIRE_TYPE_ATTRIBUTES.T, .... ${_rw_ns}" MAX_ERRORS 1)
refwire_compile_fail(attributes_on_aggregate.cpp "refwire: REFWIRE_ATTRIBUTES needs member names: describe the type with BOOST_DESCRIBE_STRUCT")
refwire_compile_fail(attributes_unknown_member.cpp "unknown_member(<refwire::detail::fixed_string<8>.\"pasword\".>|_named..7, &\"pasword\".0...)")
refwire_compile_fail(attributes_unknown_member_late.cpp "unknown_member(<refwire::detail::fixed_string<8>.\"pasword\".>|_named..7, &\"pasword\".0...)")
refwire_compile_fail(attributes_duplicate_entry.cpp "duplicate_attribute_entry(<refwire::detail::fixed_string<9>.\"password\".>|_named..8, &\"password\".0...)")
refwire_compile_fail(rename_collision.cpp "wire_name_collision(<refwire::detail::fixed_string<2>.\"y\".>|_named..1, &\"y\".0...)")
refwire_compile_fail(rename_two_to_one.cpp "wire_name_collision(<refwire::detail::fixed_string<6>.\"where\".>|_named..5, &\"where\".0...)")
refwire_compile_fail(base_derived_collision.cpp "wire_name_collision(<refwire::detail::fixed_string<3>.\"id\".>|_named..2, &\"id\".0...)")
refwire_compile_fail(pb_duplicate_number.cpp "refwire::detail::pb::duplicate_field_number<2U?>")
refwire_compile_fail(pb_number_out_of_range.cpp "refwire::detail::pb::field_number_out_of_range<536870912U?>")
refwire_compile_fail(pb_number_protobuf_range.cpp "refwire::detail::pb::field_number_in_protobuf_reserved_range<19500U?>")
refwire_compile_fail(pb_explicit_only_missing.cpp "field_without_number(<refwire::detail::fixed_string<9>.\"quantity\".>|_named..8, &\"quantity\".0...)")
refwire_compile_fail(pb_reserved_number_used.cpp "refwire::detail::pb::field_uses_reserved_number<7U?>")
refwire_compile_fail(pb_reserved_name_used.cpp "field_uses_reserved_name(<refwire::detail::fixed_string<6>.\"price\".>|_named..5, &\"price\".0...)")
refwire_compile_fail(type_attributes_too_many_reserved.cpp "refwire: too many values for this fixed_list .type_attr::reserved holds 64 numbers")
# JSON options: a type-level naming policy that gives two fields one wire name,
# and internally tagged variants whose alternatives are not structs or clash with the tag.
refwire_compile_fail(naming_collision.cpp "wire_name_collision<(refwire::detail::fixed_string<7>.\"userId\".|..117, 115, 101, 114, 73, 100, 0..)>")
refwire_compile_fail(variant_tagged_not_struct.cpp "refwire: variant_form::internally_tagged needs every alternative to be a described struct .*internally_tagged_alternative_not_a_struct<std::(__cxx11::)?basic_string<char> ?>|internally_tagged_alternative_not_a_struct<std::(__cxx11::)?basic_string<char> ?>.*refwire: variant_form::internally_tagged needs every alternative to be a described struct")
refwire_compile_fail(variant_tag_clash.cpp "field_clashes_with_variant_tag<(refwire::detail::fixed_string<5>.\"kind\".|..107, 105, 110, 100, 0..)>")
