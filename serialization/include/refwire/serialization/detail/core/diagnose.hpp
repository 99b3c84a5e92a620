#pragma once
// Compile errors a user can read: the check every entry point (serialize,
// deserialize, to_json, proto_schema, snapshots) makes before it calls a
// format. check_serializable<T, F>() is true when F can carry T and every
// type T reaches; otherwise it fails with exactly one refwire static_assert,
// advice for the kind of the offending type, and instantiation notes that
// name the offending field, its owner and its type:
//
//   struct node { int v; node* next; };
//   BOOST_DESCRIBE_STRUCT(node, (), (v, next))
//   refwire::serialize(node{});
//   // error: refwire: a raw pointer is not serializable ...: use std::unique_ptr<T> or std::optional<T> ...
//   // g++:   in 'constexpr' expansion of 'field_check<node, fixed_string<5>{"next"}, node*, via<> >::run<carried<false> >()'
//   // clang: instantiation of 'field_check<node, &field_name<'n', 'e', 'x', 't'>::value, node *, via<>>::run<carried<false>>'
//
// A field of a nested record: via<...> lists the fields leading to its
// owner, innermost first. A Boost.PFR aggregate's field: its index (1, 1UL).
//
// The entry points skip the format call (`if constexpr`) when the check
// fails, so no second error follows. The search below runs only on failure;
// success is decided by detail::deep_ok (reflect.hpp), computed once per type.
//
// The same search serves other rules: check_owning<T>() (every decode but
// deserialize_view: no std::string_view / std::span<const std::byte> field,
// which would point into the input) and check_viewable<T, Json>()
// (deserialize_view<json>: no byte view). The notes then end in
// run<owns_input>() or run<json_views>():
//
//   struct entry { std::string_view label; };
//   BOOST_DESCRIBE_STRUCT(entry, (), (label))
//   entry e = refwire::from_json<entry>(text);
//   // error: refwire: std::string_view fields point into the input: decode this type with
//   //        refwire::deserialize_view (the input must outlive the value)

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/detail/core/walk.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire::detail {

// ------------------------------------------------------------ field labels

#if defined(__clang__)
/// A field's name as template arguments: clang prints a char pack readably
/// ('n', 'e', 'x', 't'), not a class-type constant.
template <char... Cs>
struct field_name {
  static constexpr char value = 0;
};

template <class F, std::size_t... I>
constexpr auto field_label_of(std::index_sequence<I...>) {
  return &field_name<F::member_name[I]...>::value;
}
#else
/// A field's name as a template argument: g++ prints it as a string
/// (fixed_string<5>{"next"}, reflect.hpp's fixed_string, which counts the
/// terminating zero).
template <class F, std::size_t... I>
constexpr auto field_label_of(std::index_sequence<I...>) {
  return fixed_string<sizeof...(I) + 1>(F::member_name);
}
#endif

/// What the notes call field F: its C++ member name, or its index for a
/// Boost.PFR aggregate (whose fields have no names).
template <class F>
inline constexpr auto field_label = [] {
  if constexpr (F::member_name.empty()) {
    return F::index;
  } else {
    return field_label_of<F>(std::make_index_sequence<F::member_name.size()>{});
  }
}();

// ----------------------------------------------------------------- advice

enum class unserializable_kind : unsigned char {
  raw_pointer,
  function,
  long_double,
  view,
  reference,
  needs_names,
  broken_description,
  weak_pointer,
  shared_const,
  other,
};

template <class T> struct is_std_function : std::false_type {};
template <class S> struct is_std_function<std::function<S>> : std::true_type {};

template <class T> struct is_const_shared_ptr : std::false_type {};
template <class T> struct is_const_shared_ptr<std::shared_ptr<const T>> : std::true_type {};

template <class T> struct is_view : std::false_type {};
template <class C, class Tr> struct is_view<std::basic_string_view<C, Tr>> : std::true_type {};
template <class T, std::size_t N> struct is_view<std::span<T, N>> : std::true_type {};

template <class T>
consteval unserializable_kind kind_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_reference_v<T>) return unserializable_kind::reference;
  else if constexpr (std::is_pointer_v<U>) return unserializable_kind::raw_pointer;
  else if constexpr (is_std_function<U>::value) return unserializable_kind::function;
  else if constexpr (std::is_same_v<U, long double>) return unserializable_kind::long_double;
  else if constexpr (is_view<U>::value) return unserializable_kind::view;
  else if constexpr (is_weak_ptr<U>::value) return unserializable_kind::weak_pointer;
  else if constexpr (is_const_shared_ptr<U>::value) return unserializable_kind::shared_const;
  else if constexpr (broken_description<U>) return unserializable_kind::broken_description;
  else if constexpr (shape_of<U>() == shape::record && needs_names<U>()) return unserializable_kind::needs_names;
  else return unserializable_kind::other;
}

/// The error itself, for the type L that cannot be carried (T itself, or the
/// innermost offending type of a field: int* in std::vector<int*>). Exactly
/// one static_assert fails; none for a BOOST_DESCRIBE_STRUCT that did not
/// expand, which the compiler has already reported.
template <class L>
constexpr bool unserializable() {
  constexpr unserializable_kind kind = kind_of<L>();
  static_assert(kind != unserializable_kind::raw_pointer,
                "refwire: a raw pointer is not serializable (it does not own what it points to): "
                "use std::unique_ptr<T> or std::optional<T> (std::string for text)");
  static_assert(kind != unserializable_kind::function,
                "refwire: std::function is not serializable: functions cannot be serialized; "
                "store what selects the behaviour (an enum, a name) and rebuild the function after decoding");
  static_assert(kind != unserializable_kind::long_double,
                "refwire: long double is not serializable (its size and format differ between platforms): "
                "use double");
  static_assert(kind != unserializable_kind::view,
                "refwire: this view is not serializable (only std::string_view and std::span<const std::byte> "
                "are, decoded with refwire::deserialize_view): use std::string / std::vector");
  static_assert(kind != unserializable_kind::reference,
                "refwire: a reference member is not serializable: store the value, or a std::unique_ptr<T>");
  static_assert(kind != unserializable_kind::needs_names,
                "refwire: this format needs field names: describe the type with BOOST_DESCRIBE_STRUCT");
  static_assert(kind != unserializable_kind::weak_pointer,
                "refwire: std::weak_ptr is not serializable (it does not own what it points to): "
                "use std::shared_ptr<T> or std::unique_ptr<T>, or store the pointee");
  static_assert(kind != unserializable_kind::shared_const,
                "refwire: std::shared_ptr<const T> is not serializable (a decode must write the pointee): "
                "use std::shared_ptr<T>");
  static_assert(kind != unserializable_kind::other,
                "refwire: this type is not serializable: describe it with BOOST_DESCRIBE_STRUCT, "
                "make it an aggregate, or specialize refwire::codec<T>");
  return false;
}

/// The first type inside T (T itself, or an element, key, value, alternative
/// or codec surrogate, looking through containers but not into records) whose
/// shape is not carried. void when there is none.
template <class T, bool Named>
constexpr auto first_bad_leaf() {
  constexpr shape s = shape_of<T>();
  if constexpr (shape_ok<T, Named>()) {
    return std::type_identity<void>{};
  } else if constexpr (Named && std::rank_v<T> > 1) {
    return first_bad_leaf<std::remove_extent_t<T>, Named>();
  } else if constexpr (s == shape::codec) {
    return first_bad_leaf<typename codec<T>::wire, Named>();
  } else if constexpr (s == shape::optional || s == shape::sequence) {
    return first_bad_leaf<typename T::value_type, Named>();
  } else if constexpr (s == shape::fixed_array) {
    return first_bad_leaf<typename element_of<T>::type, Named>();
  } else if constexpr (s == shape::pointer) {
    return first_bad_leaf<typename T::element_type, Named>();
  } else if constexpr (s == shape::set) {
    return first_bad_leaf<typename T::key_type, Named>();
  } else if constexpr (s == shape::map) {
    if constexpr (!shape_ok<typename T::key_type, Named>()) return first_bad_leaf<typename T::key_type, Named>();
    else return first_bad_leaf<typename T::mapped_type, Named>();
  } else if constexpr (s == shape::variant || s == shape::tuple) {
    return []<template <class...> class L, class... Ts>(std::type_identity<L<Ts...>>) {
      using first = boost::mp11::mp_at<
          boost::mp11::mp_list<element_value_t<Ts>...>,
          boost::mp11::mp_find<boost::mp11::mp_list<std::bool_constant<!shape_ok<element_value_t<Ts>, Named>()>...>,
                               std::true_type>>;
      return first_bad_leaf<first, Named>();
    }(std::type_identity<T>{});
  } else {
    return std::type_identity<T>{};  // none, or a record that cannot be carried
  }
}

template <class T, bool Named>
using first_bad_leaf_t = typename decltype(first_bad_leaf<T, Named>())::type;

// ------------------------------------------------------------------ paths

/// One step of the path to an offending field: record Owner's field Name, of type Field.
template <class Owner, auto Name, class Field>
struct at {};

/// The fields that lead to the record holding the offending field, innermost
/// first: via<at<inner_owner, ...>, at<outer_owner, ...>> (empty: the checked
/// type's own field).
template <class... Steps>
struct via {};

/// The notes' subject: Owner's field Name, of type Field, cannot be carried
/// (Field itself, or a type inside it such as int* in std::vector<int*>).
/// Outer lists the fields that lead to Owner.
template <class Owner, auto Name, class Field, class Outer>
struct field_check {
  template <class Rule>
  static constexpr bool run() {
    return Rule::template report<Field>();
  }
};

/// The checked type itself cannot be carried.
template <class T>
struct type_check {
  template <class Rule>
  static constexpr bool run() {
    return Rule::template report<T>();
  }
};

/// Nothing found (not when the rule's deep check is false): no error of refwire's own.
struct nothing_found {
  template <class Rule>
  static constexpr bool run() {
    return false;
  }
};

// ------------------------------------------------------------------ rules

/// What a search looks for (find_bad below): deep<X>() is true when X and
/// everything it reaches pass (computed once per type), shallow<X>() when X
/// passes without looking into records, report<L>() fails with the message
/// for L (a field's type, or the checked type) and returns false;
/// references: a record's reference member is reported too.
///
/// carried<Named>: a format (one that needs field names, or not) can carry it.
template <bool Named>
struct carried {
  static constexpr bool references = true;
  template <class X>
  static consteval bool deep() {
    return deep_ok<X, Named>;
  }
  template <class X>
  static consteval bool shallow() {
    return shape_ok<X, Named>();
  }
  template <class L>
  static constexpr bool report() {
    return unserializable<first_bad_leaf_t<L, Named>>();
  }
};

template <class X, class Outer>
struct bad_at;
template <class X>
struct bad_at<X, via<>> {
  using type = type_check<X>;
};
template <class X, class Owner, auto Name, class Field, class... Rest>
struct bad_at<X, via<at<Owner, Name, Field>, Rest...>> {
  using type = field_check<Owner, Name, Field, via<Rest...>>;
};

template <class Step, class Outer>
struct push_step;
template <class Step, class... Steps>
struct push_step<Step, via<Steps...>> {
  using type = via<Step, Steps...>;
};

template <class X, class Rule, class Stack, class Outer>
constexpr auto find_bad();

/// The first offending field among R's walked fields.
template <class R, class Rule, class Stack, class Outer, class... Fs>
constexpr auto find_in_fields(boost::mp11::mp_list<Fs...>) {
  return []<class F0, class... Rest>(std::type_identity<F0>, std::type_identity<Rest>...) {
    using step = at<R, field_label<F0>, typename F0::type>;
    using r = decltype(find_bad<typename F0::type, Rule, boost::mp11::mp_push_back<Stack, R>,
                                typename push_step<step, Outer>::type>());
    if constexpr (!std::is_same_v<r, std::type_identity<nothing_found>> || sizeof...(Rest) == 0) {
      return r{};
    } else {
      return find_in_fields<R, Rule, Stack, Outer>(boost::mp11::mp_list<Rest...>{});
    }
  }(std::type_identity<Fs>{}...);
}

/// The first offending field of record R, unless R is on the current path.
template <class R, class Rule, class Stack, class Outer>
constexpr auto find_in_record() {
  if constexpr (boost::mp11::mp_contains<Stack, R>::value || boost::mp11::mp_empty<walked_fields_t<R>>::value) {
    return std::type_identity<nothing_found>{};
  } else if constexpr (Rule::references && has_reference_field<R>) {
    using F = boost::mp11::mp_at_c<typename fields_of<R>::type, reference_field_index<R>()>;
    using ref = std::add_lvalue_reference_t<typename F::type>;
    return std::type_identity<field_check<R, field_label<F>, ref, Outer>>{};
  } else {
    return find_in_fields<R, Rule, Stack, Outer>(walked_fields_t<R>{});
  }
}

/// The first offending record field reached through X's records.
template <class Rule, class Stack, class Outer, class... Rs>
constexpr auto find_in_records(boost::mp11::mp_list<Rs...>) {
  return []<class R0, class... Rest>(std::type_identity<R0>, std::type_identity<Rest>...) {
    using r = decltype(find_in_record<R0, Rule, Stack, Outer>());
    if constexpr (!std::is_same_v<r, std::type_identity<nothing_found>> || sizeof...(Rest) == 0) {
      return r{};
    } else {
      return find_in_records<Rule, Stack, Outer>(boost::mp11::mp_list<Rest...>{});
    }
  }(std::type_identity<Rs>{}...);
}

/// Depth-first search, in field order, for the first type Rule rejects; X
/// is reached through the fields Outer. Records on the current path (Stack)
/// are not entered again, and subtrees Rule's deep check accepts are not
/// entered at all. The result names the check that reports it.
template <class X, class Rule, class Stack, class Outer>
constexpr auto find_bad() {
  if constexpr (Rule::template deep<X>()) {
    return std::type_identity<nothing_found>{};
  } else if constexpr (!Rule::template shallow<X>()) {
    return std::type_identity<typename bad_at<X, Outer>::type>{};
  } else if constexpr (boost::mp11::mp_empty<records_in_t<X>>::value) {
    return std::type_identity<nothing_found>{};
  } else {
    return find_in_records<Rule, Stack, Outer>(records_in_t<X>{});
  }
}

/// True when T passes Rule; otherwise one readable error naming the first
/// offending field (see the top of this file) and false.
template <class T, class Rule>
constexpr bool check_rule() {
  if constexpr (Rule::template deep<T>()) {
    return true;
  } else {
    using check = typename decltype(find_bad<T, Rule, boost::mp11::mp_list<>, via<>>())::type;
    return check::template run<Rule>();
  }
}

/// True when a format that needs field names (Named) or not can carry T;
/// otherwise one readable error (see the top of this file) and false.
template <class T, bool Named>
constexpr bool check_carried() {
  return check_rule<T, carried<Named>>();
}

// ------------------------------------------------------------------ views

/// A view into the input (std::string_view, std::span<const std::byte>), or
/// a C array of them.
template <class T>
struct view_leaf : is_input_view<std::remove_all_extents_t<T>> {};

/// A std::span<const std::byte> (or a C array of them): base64 in JSON, never a view.
template <class T>
struct byte_view_leaf : std::bool_constant<is_byte_view_v<std::remove_all_extents_t<T>>> {};

/// The first type inside T (T itself, or an element, key, value, alternative
/// or codec surrogate, not looking into records) for which Leaf holds; void
/// when there is none.
template <class T, template <class> class Leaf>
constexpr auto first_leaf() {
  constexpr shape s = shape_of<T>();
  if constexpr (Leaf<T>::value) {
    return std::type_identity<T>{};
  } else if constexpr (s == shape::codec) {
    return first_leaf<typename codec<T>::wire, Leaf>();
  } else if constexpr (s == shape::optional || s == shape::sequence) {
    return first_leaf<typename T::value_type, Leaf>();
  } else if constexpr (s == shape::fixed_array) {
    return first_leaf<typename element_of<T>::type, Leaf>();
  } else if constexpr (s == shape::pointer) {
    return first_leaf<typename T::element_type, Leaf>();
  } else if constexpr (s == shape::set) {
    return first_leaf<typename T::key_type, Leaf>();
  } else if constexpr (s == shape::map) {
    using key = typename decltype(first_leaf<typename T::key_type, Leaf>())::type;
    if constexpr (!std::is_void_v<key>) return std::type_identity<key>{};
    else return first_leaf<typename T::mapped_type, Leaf>();
  } else if constexpr (s == shape::variant || s == shape::tuple) {
    return []<template <class...> class L, class... Ts>(std::type_identity<L<Ts...>>) {
      using found = boost::mp11::mp_remove_if<
          boost::mp11::mp_list<typename decltype(first_leaf<element_value_t<Ts>, Leaf>())::type...>, std::is_void>;
      if constexpr (boost::mp11::mp_empty<found>::value) return std::type_identity<void>{};
      else return std::type_identity<boost::mp11::mp_front<found>>{};
    }(std::type_identity<T>{});
  } else {
    return std::type_identity<void>{};
  }
}

template <class T, template <class> class Leaf>
using first_leaf_t = typename decltype(first_leaf<T, Leaf>())::type;

/// The error of a view reached by a decode that copies (L: the view, or a C array of views).
template <class L>
constexpr bool points_into_input() {
  using V = std::remove_all_extents_t<L>;
  static_assert(!is_string_view_v<V>,
                "refwire: std::string_view fields point into the input: decode this type with "
                "refwire::deserialize_view (the input must outlive the value)");
  static_assert(!is_byte_view_v<V>,
                "refwire: std::span<const std::byte> fields point into the input: decode this type with "
                "refwire::deserialize_view (the input must outlive the value)");
  return false;
}

/// The error of a std::span<const std::byte> that deserialize_view<json> reaches.
template <class L>
constexpr bool byte_view_in_json() {
  static_assert(dependent_false<L>,
                "refwire: deserialize_view<json>: a std::span<const std::byte> cannot be a view into JSON input "
                "(JSON holds bytes as base64 text, decoded into new storage): use std::vector<std::byte>");
  return false;
}

/// owns_input: no part of the value is a view (deserialize, from_json,
/// snapshots, compressed input: the decoded value must not point into the input).
struct owns_input {
  static constexpr bool references = false;
  template <class X>
  static consteval bool deep() {
    return !any_part<X, view_leaf>();
  }
  template <class X>
  static consteval bool shallow() {
    return std::is_void_v<first_leaf_t<X, view_leaf>>;
  }
  template <class L>
  static constexpr bool report() {
    return points_into_input<first_leaf_t<L, view_leaf>>();
  }
};

/// json_views: no part of the value is a byte view (deserialize_view<json>).
struct json_views {
  static constexpr bool references = false;
  template <class X>
  static consteval bool deep() {
    return !any_part<X, byte_view_leaf>();
  }
  template <class X>
  static consteval bool shallow() {
    return std::is_void_v<first_leaf_t<X, byte_view_leaf>>;
  }
  template <class L>
  static constexpr bool report() {
    return byte_view_in_json<first_leaf_t<L, byte_view_leaf>>();
  }
};

/// A tuple with a reference element (std::tie, std::forward_as_tuple), or a C array of them.
template <class T>
struct reference_tuple_leaf : is_reference_tuple<std::remove_all_extents_t<T>> {};

/// The error of a tuple of references reached by a decode.
template <class L>
constexpr bool decodes_into_reference() {
  static_assert(dependent_false<L>,
                "refwire: a tuple of references (std::tie, std::forward_as_tuple) can be encoded but not decoded "
                "into: decode a std::tuple of values (std::tuple<std::remove_cvref_t<Ts>...>) and move from it");
  return false;
}

/// owns_values: no part of the value is a tuple of references (every decode).
struct owns_values {
  static constexpr bool references = false;
  template <class X>
  static consteval bool deep() {
    return !any_part<X, reference_tuple_leaf>();
  }
  template <class X>
  static consteval bool shallow() {
    return std::is_void_v<first_leaf_t<X, reference_tuple_leaf>>;
  }
  template <class L>
  static constexpr bool report() {
    return decodes_into_reference<first_leaf_t<L, reference_tuple_leaf>>();
  }
};

/// True when every decode can write T: no part of it is a tuple of
/// references; otherwise one error naming the field, and false.
///   std::tuple<const int&> t = std::tie(x);
///   refwire::deserialize<refwire::binary>(bytes, t);   // error: a tuple of references ... cannot be decoded into
template <class T>
constexpr bool check_decodable() {
  return check_rule<T, owns_values>();
}

/// True when T holds no view, so a decode that copies (or decompresses) can
/// fill it; otherwise one error naming the first view field and
/// refwire::deserialize_view, and false.
template <class T>
constexpr bool check_owning() {
  return check_rule<T, owns_input>();
}

/// True when deserialize_view in format F can fill T (JSON: no byte views);
/// otherwise one error naming the field, and false.
template <class T, bool Json>
constexpr bool check_viewable() {
  if constexpr (Json) {
    return check_rule<T, json_views>();
  } else {
    return true;
  }
}

}  // namespace refwire::detail
