#pragma once
// refwire/serialization/reflect.hpp: the one field walk every format uses.
//
//   struct point { int x; double y; std::string name; };
//   BOOST_DESCRIBE_STRUCT(point, (), (x, y, name))
//
//   refwire::for_each_field(p, [](auto field, auto& member) {
//     std::cout << field.name << " #" << field.index << '\n';   // "x #0", "y #1", "name #2"
//   });
//   std::string schema = refwire::type_name<point>();  // "{i32 x;f64 y;string name}"
//
// A type is serializable when Boost.Describe describes it (with its public
// bases, whose fields come first), when it is an aggregate Boost.PFR can walk
// (positional formats only), when refwire::codec<T> maps it to another
// serializable type, or when it is one of the standard shapes (see
// docs/formats.md).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/describe/bases.hpp>
#include <boost/describe/enumerators.hpp>
#include <boost/describe/members.hpp>
#include <boost/describe/modifiers.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <boost/pfr/core.hpp>
#include <boost/pfr/tuple_size.hpp>

#include <refwire/serialization/detail/core/naming.hpp>
#include <refwire/serialization/detail/core/shapes.hpp>
#include <refwire/serialization/types.hpp>

namespace refwire {

// ---------------------------------------------------------------- attributes
//
// Three declarations, each written next to the type, in the namespace that
// declares it (they are found by argument-dependent lookup; written anywhere
// else they would be ignored, so each macro checks this where it stands):
//
//   REFWIRE_ATTRIBUTES(T, {.name = "member", ...}, ...)   per-field attributes
//   REFWIRE_TYPE_ATTRIBUTES(T, {.numbering = ..., ...})    type-level attributes
//   REFWIRE_NAME(T, "Name")                                the name in schema output

/// How protobuf writes an integer field (ignored by the other formats).
enum class int_encoding : std::uint8_t {
  varint,  ///< int32/int64/uint32/uint64 (the default)
  zigzag,  ///< sint32/sint64
  fixed,   ///< fixed32/fixed64/sfixed32/sfixed64
};

/// Per-field attributes, read by every format. Declared next to the type with
/// REFWIRE_ATTRIBUTES; `name` is the C++ member name the entry applies to.
///
///   REFWIRE_ATTRIBUTES(point, {.name = "y", .rename = "why"},
///                             {.name = "cache", .skip = true})
struct field_attr {
  std::string_view name;                         ///< the C++ member this entry applies to
  std::string_view rename = {};                  ///< wire name (JSON keys, .proto); empty: the member name
  bool skip = false;                             ///< neither written nor read; decode leaves it as it was
  std::uint32_t number = 0;                      ///< protobuf field number; 0: position + 1
  int_encoding encoding = int_encoding::varint;  ///< protobuf integer encoding
  friend constexpr bool operator==(const field_attr&, const field_attr&) = default;
};

/// A constexpr list of at most N values, written as a braced list; more than
/// N values is a compile error.
///
///   constexpr refwire::fixed_list<std::uint32_t, 4> removed = {4, 7};
///   static_assert(removed.size() == 2 && removed[1] == 7);
template <class T, std::size_t N>
struct fixed_list {
  T items[N] = {};      ///< the values; only the first size() are meaningful
  std::size_t count = 0;  ///< how many values the list holds

  constexpr fixed_list() = default;
  /// The list {a...}.
  template <class... A>
    requires(sizeof...(A) > 0 && (std::is_convertible_v<A, T> && ...))
  constexpr fixed_list(A... a) {  // NOLINT(google-explicit-constructor): written as a braced list
    static_assert(sizeof...(A) <= N, "refwire: too many values for this fixed_list (type_attr::reserved holds 64 numbers, type_attr::reserved_names 32 names)");
    if constexpr (sizeof...(A) <= N) ((items[count++] = static_cast<T>(a)), ...);
  }
  /// Number of values.
  constexpr std::size_t size() const noexcept { return count; }
  /// The i-th value.
  constexpr const T& operator[](std::size_t i) const noexcept { return items[i]; }
  /// Iteration over the values.
  constexpr const T* begin() const noexcept { return items; }
  constexpr const T* end() const noexcept { return items + count; }
  friend constexpr bool operator==(const fixed_list&, const fixed_list&) = default;
};

/// How a type's protobuf field numbers are chosen (a type-level attribute).
enum class numbering : std::uint8_t {
  positional,     ///< a field without `.number` is its position + 1 (the default)
  explicit_only,  ///< every walked field must give `.number`: a compile error names one that does not
};

/// Type-level attributes, read by every format; declared next to the type
/// with REFWIRE_TYPE_ATTRIBUTES. Protobuf reads `numbering`, `reserved` and
/// `reserved_names`: proto_schema writes `reserved 4, 7;` and `reserved "old";`,
/// a field given a reserved number or wire name is a compile error, and a
/// decoder treats a reserved number on the wire as an unknown field.
/// `naming` derives the wire names of the members the type declares (JSON
/// keys and .proto field names; a rename wins; two fields given one name are
/// a compile error). JSON reads `variants` and `variant_tag` for the variant
/// fields of the type (see docs/json-format.md, "Options").
///
///   REFWIRE_TYPE_ATTRIBUTES(order, {.numbering = refwire::numbering::explicit_only,
///                                   .reserved = {4, 7}, .reserved_names = {"price"}})
///   REFWIRE_TYPE_ATTRIBUTES(user, {.naming = refwire::naming::camel_case})
///   REFWIRE_TYPE_ATTRIBUTES(drawing, {.variants = refwire::variant_form::internally_tagged, .variant_tag = "kind"})
struct type_attr {
  ::refwire::numbering numbering = ::refwire::numbering::positional;  ///< protobuf field numbering
  fixed_list<std::uint32_t, 64> reserved = {};                       ///< removed protobuf field numbers
  fixed_list<std::string_view, 32> reserved_names = {};              ///< removed wire names
  /// The type's version, recorded in snapshots (0: unversioned). A snapshot
  /// written at an older version loads through refwire::snapshot_history.
  ///   REFWIRE_TYPE_ATTRIBUTES(settings, {.version = 3})
  std::uint32_t version = 0;
  /// The naming policy of the members this type declares (not its bases'
  /// members, which follow their own type); empty: the call's policy
  /// (encode_options::naming) applies to them.
  std::optional<::refwire::naming> naming = std::nullopt;
  /// JSON: how this type's variant fields (and variants inside their
  /// optionals, pointers and containers) are written and read; empty: the call's form.
  std::optional<::refwire::variant_form> variants = std::nullopt;
  /// JSON, with variants == variant_form::internally_tagged: the tag key.
  std::string_view variant_tag = "type";
  friend constexpr bool operator==(const type_attr&, const type_attr&) = default;
};

namespace detail {

/// True when REFWIRE_NAME gave T a name (found by ADL only).
template <class T>
concept has_type_name = requires { refwire_type_name(static_cast<T**>(nullptr)); };

/// True when REFWIRE_ATTRIBUTES gave T field attributes (found by ADL only).
template <class T>
concept has_attributes = requires { refwire_attributes(static_cast<T**>(nullptr)); };

/// True when REFWIRE_TYPE_ATTRIBUTES gave T type-level attributes (found by ADL only).
template <class T>
concept has_type_attributes = requires { refwire_type_attributes(static_cast<T**>(nullptr)); };

/// True when the declaration ADL finds for T is `here`, the one a macro
/// is checking: false when that macro stands in another namespace, whether
/// ADL finds nothing or finds another declaration (the one that is used).
template <class T, class A>
constexpr bool attributes_declared_here(const A& here) {
  if constexpr (!has_attributes<T>) {
    return false;
  } else if constexpr (!std::is_same_v<decltype(refwire_attributes(static_cast<T**>(nullptr))), A>) {
    return false;
  } else {
    return refwire_attributes(static_cast<T**>(nullptr)) == here;
  }
}

template <class T>
constexpr bool type_attributes_declared_here(const type_attr& here) {
  if constexpr (!has_type_attributes<T>) {
    return false;
  } else {
    return refwire_type_attributes(static_cast<T**>(nullptr)) == here;
  }
}

template <class T>
constexpr bool name_declared_here(std::string_view here) {
  if constexpr (!has_type_name<T>) {
    return false;
  } else {
    return refwire_type_name(static_cast<T**>(nullptr)) == here;
  }
}

template <class T>
constexpr auto attributes_of() {
  if constexpr (has_attributes<T>) {
    return refwire_attributes(static_cast<T**>(nullptr));
  } else {
    return std::array<field_attr, 0>{};
  }
}

/// T's type-level attributes (the defaults when it declares none).
template <class T>
constexpr type_attr type_attributes_of() {
  if constexpr (has_type_attributes<T>) {
    return refwire_type_attributes(static_cast<T**>(nullptr));
  } else {
    return type_attr{};
  }
}

template <class T>
constexpr field_attr attribute_for(std::string_view member) {
  for (const field_attr& a : attributes_of<T>()) {
    if (a.name == member) return a;
  }
  return field_attr{member};
}

// ------------------------------------------------- diagnostics that name names
//
// A static_assert message is a literal, so an error about one member or one
// number carries it in a template argument: g++ prints the class template
// argument (`unknown_member<fixed_string<8>{"pasword"}>`), clang prints the
// argument of the constexpr call that stops the evaluation
// (`in call to 'unknown_member_named({7, &"pasword"[0]})'`).

/// A string as a template argument.
template <std::size_t N>
struct fixed_string {
  char value[N] = {};
  constexpr fixed_string(std::string_view s) noexcept {  // NOLINT(google-explicit-constructor)
    for (std::size_t i = 0; i + 1 < N && i < s.size(); ++i) value[i] = s[i];
  }
};

template <auto>
inline constexpr bool false_v = false;

/// Not constexpr: a constant evaluation that reaches it stops there, and
/// clang shows the arguments of the call that did.
void refwire_compile_time_error() noexcept;

/// Each stops a constant evaluation, naming `name` in clang's notes (the
/// function's name says what is wrong with it).
constexpr bool unknown_member_named(std::string_view name) noexcept {
  if (name.size() != static_cast<std::size_t>(-1)) refwire_compile_time_error();
  return false;
}
constexpr bool duplicate_attribute_entry_named(std::string_view name) noexcept {
  if (name.size() != static_cast<std::size_t>(-1)) refwire_compile_time_error();
  return false;
}
constexpr bool wire_name_collision_named(std::string_view name) noexcept {
  if (name.size() != static_cast<std::size_t>(-1)) refwire_compile_time_error();
  return false;
}

template <fixed_string Name>
struct unknown_member {
  static_assert(false_v<Name>,
                "refwire: REFWIRE_ATTRIBUTES names a member that this type does not describe "
                "(the member is the template argument of unknown_member)");
  static constexpr bool ok = true;  // reported above; the caller's own assert stays quiet
};

template <fixed_string Name>
struct duplicate_attribute_entry {
  static_assert(false_v<Name>,
                "refwire: REFWIRE_ATTRIBUTES has two entries for one member "
                "(the member is the template argument of duplicate_attribute_entry); merge them");
  static constexpr bool ok = true;  // reported above; the caller's own assert stays quiet
};

template <fixed_string Name>
struct wire_name_collision {
  static_assert(false_v<Name>,
                "refwire: two fields of this type have the same wire name (a rename, or a base field with the "
                "same name; the name is the template argument of wire_name_collision); rename or skip one");
  static constexpr bool ok = true;  // reported above; the caller's own assert stays quiet
};

/// The string at index I of the constexpr array List() returns, as a template argument.
template <auto List, std::size_t I>
inline constexpr auto fixed_at = fixed_string<List()[I].size() + 1>(List()[I]);

/// Where a check found nothing.
inline constexpr std::size_t no_index = static_cast<std::size_t>(-1);

/// The wire name of each field of T and whether it is skipped (base fields first).
struct wire_entry {
  std::string_view name;
  bool skip = false;
};

template <class T>
constexpr std::size_t unknown_attribute_index() {
  constexpr auto attrs = attributes_of<T>();
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    bool found = false;
    boost::mp11::mp_for_each<boost::describe::describe_members<T, boost::describe::mod_any_access>>(
        [&](auto d) { found = found || attrs[i].name == std::string_view(d.name); });
    if (!found) return i;
  }
  return no_index;
}

template <class T>
constexpr std::size_t duplicate_attribute_index() {
  constexpr auto attrs = attributes_of<T>();
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (attrs[i].name == attrs[j].name) return i;
    }
  }
  return no_index;
}

template <class T>
constexpr auto attribute_names() {
  constexpr auto attrs = attributes_of<T>();
  std::array<std::string_view, attrs.size()> names{};
  for (std::size_t i = 0; i < attrs.size(); ++i) names[i] = attrs[i].name;
  return names;
}

/// The first problem with T's own REFWIRE_ATTRIBUTES entries (an unknown
/// member, a member given twice), stopping the evaluation in the function
/// that names it (for clang's notes).
template <class T>
constexpr bool attribute_entries_ok() {
  constexpr std::size_t unknown = unknown_attribute_index<T>();
  constexpr std::size_t twice = duplicate_attribute_index<T>();
  if (unknown != no_index) return unknown_member_named(attributes_of<T>()[unknown].name);
  if (twice != no_index) return duplicate_attribute_entry_named(attributes_of<T>()[twice].name);
  return true;
}

/// The same problem as a failed static_assert whose class names it (for g++'s notes).
template <class T>
constexpr bool attribute_entries_named() {
  constexpr std::size_t unknown = unknown_attribute_index<T>();
  constexpr std::size_t twice = duplicate_attribute_index<T>();
  if constexpr (unknown != no_index) {
    return unknown_member<fixed_at<attribute_names<T>, unknown>>::ok;
  } else if constexpr (twice != no_index) {
    return duplicate_attribute_entry<fixed_at<attribute_names<T>, twice>>::ok;
  } else {
    return true;
  }
}

/// Checks T's own REFWIRE_ATTRIBUTES entries: each names a described member, once.
template <class T>
constexpr bool check_attribute_entries() {
  static_assert(attribute_entries_named<T>());
#if defined(__clang__)
  static_assert(attribute_entries_ok<T>());  // clang names the member only in this evaluation's notes
#endif
  return true;
}

}  // namespace detail

/// Declares field attributes for TYPE, next to it and in the namespace that
/// declares it (like BOOST_DESCRIBE_STRUCT); written anywhere else it is a
/// compile error. Each entry names a described member, at most once; a rename
/// must not give two walked fields one wire name.
///
///   namespace app {
///   struct user { std::string name; std::string password; };
///   BOOST_DESCRIBE_STRUCT(user, (), (name, password))
///   REFWIRE_ATTRIBUTES(user, {.name = "password", .skip = true})
///   }  // namespace app
#define REFWIRE_ATTRIBUTES(TYPE, ...)                                                                      \
  [[maybe_unused]] constexpr auto refwire_attributes(TYPE**) {                                             \
    return std::to_array<::refwire::field_attr>({__VA_ARGS__});                                            \
  }                                                                                                        \
  static_assert(::refwire::detail::attributes_declared_here<TYPE>(                                         \
                    std::to_array<::refwire::field_attr>({__VA_ARGS__})),                                   \
                "refwire: REFWIRE_ATTRIBUTES(T, ...) must be written in the namespace that declares T (it " \
                "is found by argument-dependent lookup); here it would be ignored");                       \
  static_assert([]<class U>(U**) {                                                                         \
    if constexpr (requires(U** u) { boost_public_member_descriptor_fn(u); }) {                             \
      return ::refwire::detail::check_attribute_entries<U>();                                              \
    } else {                                                                                               \
      return true; /* described later: checked where the type is first walked */                          \
    }                                                                                                      \
  }(static_cast<TYPE**>(nullptr)));

/// Declares type-level attributes for TYPE (a refwire::type_attr), next to it
/// and in the namespace that declares it; written anywhere else it is a
/// compile error.
///
///   namespace shop {
///   struct order { std::uint64_t id; std::string note; };
///   BOOST_DESCRIBE_STRUCT(order, (), (id, note))
///   REFWIRE_ATTRIBUTES(order, {.name = "id", .number = 1}, {.name = "note", .number = 3})
///   REFWIRE_TYPE_ATTRIBUTES(order, {.numbering = refwire::numbering::explicit_only, .reserved = {2}})
///   }  // namespace shop
#define REFWIRE_TYPE_ATTRIBUTES(TYPE, ...)                                                                      \
  [[maybe_unused]] constexpr ::refwire::type_attr refwire_type_attributes(TYPE**) {                             \
    return ::refwire::type_attr __VA_ARGS__;                                                                    \
  }                                                                                                             \
  static_assert(::refwire::detail::type_attributes_declared_here<TYPE>(::refwire::type_attr __VA_ARGS__),      \
                "refwire: REFWIRE_TYPE_ATTRIBUTES(T, ...) must be written in the namespace that declares T (it " \
                "is found by argument-dependent lookup); here it would be ignored");                            \
  static_assert((::refwire::type_attr __VA_ARGS__).numbering <= ::refwire::numbering::explicit_only);

/// Names TYPE (a record, an enum, any class) in schema output: the message or
/// enum name proto_schema writes. Declared next to the type, in the namespace
/// that declares it; written anywhere else it is a compile error.
/// Boost.Describe does not record a type's name, and refwire never takes one
/// from the compiler (g++ and clang spell types differently); an unnamed type
/// gets a name derived from its canonical spelling, see detail::schema_name.
///
///   struct point { int x; int y; };
///   BOOST_DESCRIBE_STRUCT(point, (), (x, y))
///   REFWIRE_NAME(point, "Point")
#define REFWIRE_NAME(TYPE, NAME)                                                                          \
  [[maybe_unused]] constexpr ::std::string_view refwire_type_name(TYPE**) { return NAME; }                \
  static_assert(::refwire::detail::name_declared_here<TYPE>(NAME),                                         \
                "refwire: REFWIRE_NAME(T, \"Name\") must be written in the namespace that declares T (it is " \
                "found by argument-dependent lookup); here it would be ignored");

// ------------------------------------------------------------------- records

namespace detail {

/// A member name under policy P, in static storage.
template <class D, naming P>
inline constexpr auto converted_name_v =
    converted_name<converted_capacity(std::string_view(D::name).size())>(std::string_view(D::name), P);

/// The wire name the member described by D of Owner has by Owner's own
/// attributes: its rename, else its name under Owner's naming policy, else its name.
template <class Owner, class D>
constexpr std::string_view own_wire_name() {
  constexpr field_attr a = attribute_for<Owner>(D::name);
  constexpr std::optional<naming> p = type_attributes_of<Owner>().naming;
  if constexpr (!a.rename.empty()) {
    return a.rename;
  } else if constexpr (p.has_value() && *p != naming::as_declared) {
    return converted_name_v<D, *p>.view();
  } else {
    return D::name;
  }
}

/// The wire name of that member when a call asks for policy P: its own
/// wire name when it has a rename or Owner sets a policy, else its name under P.
template <class Owner, class D, naming P>
constexpr std::string_view call_wire_name() {
  constexpr bool own = !attribute_for<Owner>(D::name).rename.empty() || type_attributes_of<Owner>().naming.has_value();
  if constexpr (own || P == naming::as_declared) {
    return own_wire_name<Owner, D>();
  } else {
    return converted_name_v<D, P>.view();
  }
}

/// One field, known at compile time: `index` is its position among all the
/// record's fields (base fields first, skipped fields counted), `name` its wire
/// name (empty for PFR aggregates), `attr` its attributes, `type` its C++ type.
template <class Owner, class D, std::size_t I>
struct described_field {
  using owner = Owner;
  using type = std::remove_cvref_t<decltype(std::declval<Owner&>().*D::pointer)>;
  static constexpr std::size_t index = I;
  static constexpr std::string_view member_name = D::name;
  static constexpr field_attr attr = attribute_for<Owner>(D::name);
  static constexpr std::string_view name = own_wire_name<Owner, D>();
  using desc = D;
  template <class T>
  static constexpr auto& get(T& obj) noexcept { return obj.*D::pointer; }
};

template <class T, std::size_t I>
struct aggregate_field {
  using desc = void;
  using owner = T;
  using type = std::remove_cvref_t<decltype(boost::pfr::get<I>(std::declval<T&>()))>;
  static constexpr std::size_t index = I;
  static constexpr std::string_view member_name = {};
  static constexpr field_attr attr = {};
  static constexpr std::string_view name = {};
  template <class U>
  static constexpr auto& get(U& obj) noexcept { return boost::pfr::get<I>(obj); }
};

template <class Owner, class D>
struct member_of {
  using owner = Owner;
  using desc = D;
};

template <class T>
struct flat_members;

template <class T>
using flat_members_t = typename flat_members<T>::type;

template <class T>
struct flat_members {
  static_assert(boost::mp11::mp_empty<boost::describe::describe_bases<
                    T, boost::describe::mod_protected | boost::describe::mod_private>>::value,
                "refwire: only public bases can be serialized; make the base public");
  template <class B>
  using base_members = flat_members_t<typename B::type>;
  template <class D>
  using own = member_of<T, D>;
  using type = boost::mp11::mp_append<
      boost::mp11::mp_apply<boost::mp11::mp_append,
                            boost::mp11::mp_push_front<
                                boost::mp11::mp_transform<
                                    base_members, boost::describe::describe_bases<T, boost::describe::mod_public>>,
                                boost::mp11::mp_list<>>>,
      boost::mp11::mp_transform<own, boost::describe::describe_members<T, boost::describe::mod_any_access>>>;
};

template <class M, class I>
using make_described_field = described_field<typename M::owner, typename M::desc, I::value>;

template <class T>
struct fields_of;

/// The wire name and skip flag of each field of T (base fields first).
template <class T>
constexpr auto wire_entries() {
  return []<class... M>(boost::mp11::mp_list<M...>) {
    return std::array<wire_entry, sizeof...(M)>{wire_entry{own_wire_name<typename M::owner, typename M::desc>(),
                                                           attribute_for<typename M::owner>(M::desc::name).skip}...};
  }(flat_members_t<T>{});
}

template <class T>
constexpr auto wire_names() {
  constexpr auto entries = wire_entries<T>();
  std::array<std::string_view, entries.size()> names{};
  for (std::size_t i = 0; i < entries.size(); ++i) names[i] = entries[i].name;
  return names;
}

/// The index of the first walked field whose wire name an earlier walked field has.
template <class T>
constexpr std::size_t wire_name_collision_index() {
  constexpr auto entries = wire_entries<T>();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].skip) continue;
    for (std::size_t j = 0; j < i; ++j) {
      if (!entries[j].skip && entries[j].name == entries[i].name) return i;
    }
  }
  return no_index;
}

template <class T>
constexpr bool wire_names_ok() {
  constexpr std::size_t collision = wire_name_collision_index<T>();
  if (collision != no_index) return wire_name_collision_named(wire_entries<T>()[collision].name);
  return true;
}

template <class T>
constexpr bool wire_names_named() {
  constexpr std::size_t collision = wire_name_collision_index<T>();
  if constexpr (collision != no_index) {
    return wire_name_collision<fixed_at<wire_names<T>, collision>>::ok;
  } else {
    return true;
  }
}

/// Every attribute rule of a described record T: its entries name described
/// members once each, and no two walked fields share a wire name.
template <class T>
constexpr bool check_record_attributes() {
  static_assert(check_attribute_entries<T>());
  static_assert(wire_names_named<T>());
#if defined(__clang__)
  static_assert(wire_names_ok<T>());  // clang names the wire name only in this evaluation's notes
#endif
  return true;
}

template <described_record T>
struct fields_of<T> {
  static_assert(check_record_attributes<T>());
  using members = flat_members_t<T>;
  using type = boost::mp11::mp_transform<make_described_field, members,
                                         boost::mp11::mp_iota<boost::mp11::mp_size<members>>>;
};

template <aggregate_record T>
struct fields_of<T> {
  static_assert(!has_attributes<T>,
                "refwire: REFWIRE_ATTRIBUTES needs member names: describe the type with BOOST_DESCRIBE_STRUCT "
                "(an aggregate walked by position has none, so its attributes would be ignored)");
  template <class I>
  using field = aggregate_field<T, I::value>;
  using type = boost::mp11::mp_transform<field, boost::mp11::mp_iota_c<boost::pfr::tuple_size_v<T>>>;
};

template <class F>
struct skipped : std::bool_constant<F::attr.skip> {};

template <record T>
using walked_fields_t = boost::mp11::mp_remove_if<typename fields_of<T>::type, skipped>;

/// Calls f(field, member) for each walked field until f returns false.
template <class T, class F>
constexpr bool all_fields(T& obj, F&& f) {
  using R = std::remove_const_t<T>;
  return [&]<class... Fs>(boost::mp11::mp_list<Fs...>) {
    return (f(Fs{}, Fs::get(obj)) && ...);
  }(walked_fields_t<R>{});
}

}  // namespace detail

/// Number of fields of a record, skipped ones included (base fields count).
template <record T>
inline constexpr std::size_t field_count = boost::mp11::mp_size<typename detail::fields_of<T>::type>::value;

/// Calls f(field, member) for every field of obj that is not skipped, base
/// fields first. `field` is an empty object with static members index, name,
/// member_name, attr and the alias type.
///
///   refwire::for_each_field(p, [&](auto field, const auto& v) { out[field.name] = describe(v); });
template <class T, class F>
  requires record<std::remove_const_t<T>>
constexpr void for_each_field(T& obj, F&& f) {
  detail::all_fields(obj, [&](auto field, auto& member) {
    f(field, member);
    return true;
  });
}

/// Calls f(field) for every walked field of T, without an object.
template <record T, class F>
constexpr void for_each_field_type(F&& f) {
  boost::mp11::mp_for_each<detail::walked_fields_t<T>>(f);
}

// ------------------------------------------------------------- serializable

namespace detail {

/// A PFR aggregate with fields: a format that names fields cannot carry it
/// (a fieldless one, such as std::monostate, is written as `{}`).
template <class T>
consteval bool needs_names() {
  if constexpr (aggregate_record<T>) {
    return boost::pfr::tuple_size_v<T> != 0;
  } else {
    return false;
  }
}

/// True when T's own shape is one refwire carries, looking through
/// containers, optionals, pointers, variants, tuples and codecs down to the
/// leaves. A record counts as carried here (its fields are checked on their
/// own, see deep_ok), unless `Named` asks for field names and T is a PFR
/// aggregate, or its BOOST_DESCRIBE_STRUCT failed to expand.
template <class T, bool Named>
consteval bool shape_ok() {
  constexpr shape s = shape_of<T>();
  if constexpr (Named && std::rank_v<T> > 1) {
    return shape_ok<std::remove_extent_t<T>, Named>();  // JSON writes a C array of arrays as nested arrays
  } else if constexpr (s == shape::none) {
    return false;
  } else if constexpr (s == shape::codec) {
    return shape_ok<typename codec<T>::wire, Named>();
  } else if constexpr (s == shape::optional || s == shape::sequence) {
    return shape_ok<typename T::value_type, Named>();
  } else if constexpr (s == shape::fixed_array) {
    return shape_ok<typename element_of<T>::type, Named>();
  } else if constexpr (s == shape::pointer) {
    return shape_ok<typename T::element_type, Named>();
  } else if constexpr (s == shape::set) {
    return shape_ok<typename T::key_type, Named>();
  } else if constexpr (s == shape::map) {
    return shape_ok<typename T::key_type, Named>() && shape_ok<typename T::mapped_type, Named>();
  } else if constexpr (s == shape::variant || s == shape::tuple) {
    return []<template <class...> class L, class... Ts>(std::type_identity<L<Ts...>>) {
      return (shape_ok<element_value_t<Ts>, Named>() && ...);
    }(std::type_identity<T>{});
  } else if constexpr (s == shape::record) {
    return !broken_description<T> && !(Named && needs_names<T>());
  } else {
    return true;  // scalars, strings, blobs, time values
  }
}

/// The records T reaches without going through another record (T itself
/// when it is one), as an mp_list.
template <class T>
constexpr auto records_in_f() {
  constexpr shape s = shape_of<T>();
  if constexpr (std::rank_v<T> > 1) {
    return records_in_f<std::remove_extent_t<T>>();
  } else if constexpr (s == shape::codec) {
    return records_in_f<typename codec<T>::wire>();
  } else if constexpr (s == shape::optional || s == shape::sequence) {
    return records_in_f<typename T::value_type>();
  } else if constexpr (s == shape::fixed_array) {
    return records_in_f<typename element_of<T>::type>();
  } else if constexpr (s == shape::pointer) {
    return records_in_f<typename T::element_type>();
  } else if constexpr (s == shape::set) {
    return records_in_f<typename T::key_type>();
  } else if constexpr (s == shape::map) {
    return boost::mp11::mp_append<decltype(records_in_f<typename T::key_type>()),
                                  decltype(records_in_f<typename T::mapped_type>())>{};
  } else if constexpr (s == shape::variant || s == shape::tuple) {
    return []<template <class...> class L, class... Ts>(std::type_identity<L<Ts...>>) {
      return boost::mp11::mp_append<boost::mp11::mp_list<>, decltype(records_in_f<element_value_t<Ts>>())...>{};
    }(std::type_identity<T>{});
  } else if constexpr (s == shape::record) {
    return boost::mp11::mp_list<T>{};
  } else {
    return boost::mp11::mp_list<>{};
  }
}

template <class T>
using records_in_t = decltype(records_in_f<T>());

/// Aggregate-initialization probes: one binds to any lvalue reference (and
/// copies into any copyable value), the other yields a prvalue of any type,
/// which a non-const lvalue reference member cannot bind to.
struct any_lvalue_probe {
  template <class U>
  operator U&() const noexcept;
};
struct any_prvalue_probe {
  template <class U>
  operator U() const noexcept;
};

template <std::size_t J, std::size_t I>
using probe_t = std::conditional_t<J == I, any_lvalue_probe, any_prvalue_probe>;

/// T{prvalue..., lvalue (at I), prvalue...} compiles (I == N: prvalues only).
template <class T, std::size_t I, std::size_t... J>
consteval bool inits_with_lvalue_at(std::index_sequence<J...>) {
  return requires { T{probe_t<J, I>{}...}; };
}

/// The index of an aggregate's lvalue-reference member, or N (its field
/// count) when it has none or more than one. Boost.PFR reads through a
/// reference, so the walk sees the referenced type. Only aggregates that are
/// not default constructible are probed (a reference member without a
/// default member initializer makes them so).
template <class T, std::size_t N>
consteval std::size_t reference_member_index() {
  if constexpr (std::is_default_constructible_v<T> || inits_with_lvalue_at<T, N>(std::make_index_sequence<N>{})) {
    return N;
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      std::size_t found = N;
      ((found = (found == N && inits_with_lvalue_at<T, I>(std::make_index_sequence<N>{})) ? I : found), ...);
      return found;
    }(std::make_index_sequence<N>{});
  }
}

/// An aggregate record's reference member's index, or its field count.
template <class R>
constexpr std::size_t reference_field_index() {
  if constexpr (aggregate_record<R>) {
    return reference_member_index<R, boost::pfr::tuple_size_v<R>>();
  } else {
    return boost::mp11::mp_size<typename fields_of<R>::type>::value;
  }
}

template <class R>
inline constexpr bool has_reference_field =
    reference_field_index<R>() != boost::mp11::mp_size<typename fields_of<R>::type>::value;

/// One record's own checks, computed once per record type: whether every
/// walked field's shape is carried, and which records its fields reach.
template <class R>
struct record_facts {
  template <class F>
  using reached = records_in_t<typename F::type>;
  using children =
      boost::mp11::mp_unique<boost::mp11::mp_apply<boost::mp11::mp_append,
                                                    boost::mp11::mp_push_front<boost::mp11::mp_transform<
                                                        reached, walked_fields_t<R>>, boost::mp11::mp_list<>>>>;
  template <bool Named>
  static constexpr bool fields_ok = !has_reference_field<R> && []<class... Fs>(boost::mp11::mp_list<Fs...>) {
    return (shape_ok<typename Fs::type, Named>() && ...);
  }(walked_fields_t<R>{});
};

/// Every record reachable from the worklist `Work` (each once: recursive
/// types end where a record is met again).
template <class Work, class Seen>
struct reachable_records {
  using type = Seen;
};
template <class W, class... Ws, class Seen>
struct reachable_records<boost::mp11::mp_list<W, Ws...>, Seen> {
  using type = typename boost::mp11::mp_if<
      boost::mp11::mp_contains<Seen, W>, reachable_records<boost::mp11::mp_list<Ws...>, Seen>,
      reachable_records<boost::mp11::mp_append<boost::mp11::mp_list<Ws...>, typename record_facts<W>::children>,
                        boost::mp11::mp_push_back<Seen, W>>>::type;
};

template <class T, bool Named>
consteval bool deep_check() {
  if constexpr (!shape_ok<T, Named>()) {
    return false;
  } else {
    return []<class... Rs>(boost::mp11::mp_list<Rs...>) {
      return (record_facts<Rs>::template fields_ok<Named> && ...);
    }(typename reachable_records<records_in_t<T>, boost::mp11::mp_list<>>::type{});
  }
}

/// True when T and every type it reaches (record fields included, however
/// deeply nested) are carried; `Named`: by a format that needs field names.
/// Computed once per type.
template <class T, bool Named>
inline constexpr bool deep_ok = deep_check<T, Named>();

}  // namespace detail

/// True when refwire can encode T in a positional format (binary, protobuf):
/// T and, for a record, every field it walks (however deeply nested) have a
/// shape refwire carries. Recursive types (through std::unique_ptr,
/// std::optional or a container) are serializable.
///
///   struct point { int x; double y; };
///   struct holder { point p; int* raw; };
///   static_assert(refwire::serializable<point>);
///   static_assert(!refwire::serializable<holder>);    // the raw pointer
template <class T>
concept serializable = detail::deep_ok<T, false>;

// ---------------------------------------------------------- canonical names

/// refwire's own spelling of T's schema, identical on every compiler:
/// "i32", "string", "vector<f64>", "{i32 x;f64 y;string name}" for a record
/// (its fields, base fields first), "@0" for a recursive reference to the
/// record being spelled. Containers are spelled by what they carry, not by
/// their C++ class: std::map and std::unordered_map are both "map<string,i32>",
/// std::multimap and std::unordered_multimap "multimap<string,i32>";
/// std::unique_ptr<T> is "ptr<...>", std::shared_ptr<T> "shared_ptr<...>",
/// std::bitset<12> "bitset<12>", std::filesystem::path "path", std::u8string
/// "u8string".
///
///   assert(refwire::type_name<std::multiset<int>>() == "multiset<i32>");
template <serializable T>
std::string type_name();

/// A 64-bit FNV-1a hash of type_name<T>(): the schema fingerprint (field
/// types, order and names) that guards JSON and protobuf snapshots. (The RPC
/// handshake compares the type_name strings of each method's parameters.)
///   if (refwire::fingerprint<point>() != peer_fingerprint) reject();
template <serializable T>
std::uint64_t fingerprint();

/// A 64-bit FNV-1a hash of T's layout: type_name<T>() without field names and
/// enumerator names ("{i32;f64;string}", enums "enum:u8{0,1,2}"), so renaming a
/// field or an enumerator keeps it. Binary snapshots record it: binary is
/// positional, the names are not on the wire.
///   struct before { std::int32_t count; };  BOOST_DESCRIBE_STRUCT(before, (), (count))
///   struct after { std::int32_t total; };   BOOST_DESCRIBE_STRUCT(after, (), (total))
///   assert(refwire::layout_fingerprint<before>() == refwire::layout_fingerprint<after>());
///   assert(refwire::fingerprint<before>() != refwire::fingerprint<after>());
template <serializable T>
std::uint64_t layout_fingerprint();

namespace detail {

constexpr std::uint64_t fnv1a(std::string_view s) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

struct name_builder {
  std::string out;
  std::vector<const void*> open;  // records being spelled, outermost first
  bool names = true;              // false: the layout only (layout_fingerprint)
};

template <class T>
inline constexpr char type_key = 0;

template <class T>
void append_name(name_builder& b);

template <class... Ts>
void append_list(name_builder& b) {
  bool first = true;
  ((b.out += first ? "" : ",", first = false, append_name<Ts>(b)), ...);
}

template <class T>
void append_name(name_builder& b) {
  constexpr shape s = shape_of<T>();
  if constexpr (s == shape::codec) {
    append_name<typename codec<T>::wire>(b);
  } else if constexpr (s == shape::boolean) {
    b.out += "bool";
  } else if constexpr (s == shape::integer) {
    if constexpr (std::is_same_v<T, char>) {
      b.out += "char";
    } else {
      b.out += std::is_signed_v<T> ? 'i' : 'u';
      b.out += std::to_string(sizeof(T) * 8);
    }
  } else if constexpr (s == shape::floating) {
    b.out += sizeof(T) == 4 ? "f32" : "f64";
  } else if constexpr (s == shape::enumeration && std::is_same_v<T, std::byte>) {
    b.out += "byte";
  } else if constexpr (s == shape::enumeration) {
    b.out += "enum:";
    append_name<std::underlying_type_t<T>>(b);
    if constexpr (boost::describe::has_describe_enumerators<T>::value) {
      b.out += '{';
      bool first = true;
      boost::mp11::mp_for_each<boost::describe::describe_enumerators<T>>([&](auto e) {
        if (!first) b.out += ',';
        first = false;
        if (b.names) {
          b.out += e.name;
          b.out += '=';
        }
        b.out += std::to_string(static_cast<std::int64_t>(e.value));
      });
      b.out += '}';
    }
  } else if constexpr (s == shape::string) {
    b.out += "string";
  } else if constexpr (s == shape::text) {
    b.out += is_path_v<T> ? "path" : "u8string";
  } else if constexpr (s == shape::bitset) {
    b.out += "bitset<" + std::to_string(bitset_size<T>) + '>';
  } else if constexpr (s == shape::blob) {
    b.out += "bytes";
  } else if constexpr (s == shape::uuid) {
    b.out += "uuid";
  } else if constexpr (s == shape::timestamp) {
    b.out += "timestamp";
  } else if constexpr (s == shape::duration) {
    b.out += "duration";
  } else if constexpr (s == shape::optional) {
    b.out += "optional<";
    append_name<typename T::value_type>(b);
    b.out += '>';
  } else if constexpr (s == shape::pointer) {
    b.out += is_shared_ptr<T>::value ? "shared_ptr<" : "ptr<";
    append_name<typename T::element_type>(b);
    b.out += '>';
  } else if constexpr (s == shape::sequence) {
    b.out += "vector<";
    append_name<typename T::value_type>(b);
    b.out += '>';
  } else if constexpr (s == shape::fixed_array) {
    b.out += "array<";
    append_name<typename element_of<T>::type>(b);
    b.out += ',' + std::to_string(fixed_extent<T>) + '>';
  } else if constexpr (s == shape::set) {
    b.out += is_multi_v<T> ? "multiset<" : "set<";
    append_name<typename T::key_type>(b);
    b.out += '>';
  } else if constexpr (s == shape::map) {
    b.out += is_multi_v<T> ? "multimap<" : "map<";
    append_list<typename T::key_type, typename T::mapped_type>(b);
    b.out += '>';
  } else if constexpr (s == shape::variant || s == shape::tuple) {
    b.out += s == shape::variant ? "variant<" : "tuple<";
    [&]<template <class...> class L, class... Ts>(std::type_identity<L<Ts...>>) {
      append_list<element_value_t<Ts>...>(b);
    }(std::type_identity<T>{});
    b.out += '>';
  } else if constexpr (s == shape::record) {
    const void* key = &type_key<T>;
    for (std::size_t i = 0; i < b.open.size(); ++i) {
      if (b.open[i] == key) {
        b.out += '@' + std::to_string(i);
        return;
      }
    }
    b.open.push_back(key);
    b.out += '{';
    bool first = true;
    for_each_field_type<T>([&](auto field) {
      using F = decltype(field);
      if (!first) b.out += ';';
      first = false;
      append_name<typename F::type>(b);
      if (b.names && !F::name.empty()) {
        b.out += ' ';
        b.out += F::name;
      }
    });
    b.out += '}';
    b.open.pop_back();
  } else {
    static_assert(dependent_false<T>, "refwire: this field type is not serializable");
  }
}

}  // namespace detail

template <serializable T>
std::string type_name() {
  detail::name_builder b;
  detail::append_name<T>(b);
  return std::move(b.out);
}

template <serializable T>
std::uint64_t fingerprint() {
  static const std::uint64_t value = detail::fnv1a(type_name<T>());
  return value;
}

namespace detail {

/// type_name<T>() without field and enumerator names: what layout_fingerprint hashes.
template <serializable T>
std::string layout_name() {
  name_builder b;
  b.names = false;
  append_name<T>(b);
  return std::move(b.out);
}

}  // namespace detail

template <serializable T>
std::uint64_t layout_fingerprint() {
  static const std::uint64_t value = detail::fnv1a(detail::layout_name<T>());
  return value;
}

}  // namespace refwire
