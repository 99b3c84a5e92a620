#pragma once
// Interfaces and their methods, at compile time: which methods an interface
// has (Boost.Describe), their ids and signatures, and how arguments and
// results are encoded with a codec chosen at run time (refwire's format
// registry). Used by client<I> and server::serve<I>; no sockets here.
//
//   struct calculator {
//     virtual ~calculator() = default;
//     virtual int add(int a, int b) = 0;
//     virtual std::vector<point> range(int n) = 0;
//     virtual void log(std::string line) = 0;
//   };
//   BOOST_DESCRIBE_STRUCT(calculator, (), (add, range, log))
//   REFWIRE_NAME(calculator, "calc.v1")
//
//   using add = refwire::rpc::detail::method<&calculator::add>;
//   static_assert(add::name == "add" && add::id == refwire::rpc::detail::method_id("calc.v1", "add"));
//   methods_of<calculator>()[0].signature == "(i32,i32)->i32"
//
// A method is found among its interface's described methods by the identity
// of the member pointer as a template argument, never by comparing member
// pointers with == (clang 14 rejects that for virtual members in constant
// expressions). Overloads are not supported (Boost.Describe cannot take the
// address of an overloaded member).
//
// Parameters: T, const T& and T&& are inputs; a non-const T& is an
// out-parameter, sent with its current value, and the server's value after
// the call travels back. The request is the tuple of the parameters; the
// response the tuple of the result (when not void) and the out-parameters,
// in order, in the connection's codec (binary, JSON: an array, protobuf: a
// message with item_1, item_2, ...).

#include <cxxabi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include <boost/describe/members.hpp>
#include <boost/describe/modifiers.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <refwire/rpc/error.hpp>
#include <refwire/rpc/status.hpp>
#include <refwire/serialization.hpp>
#include <refwire/serialization/formats.hpp>

namespace refwire::rpc::detail {

// ------------------------------------------------------------------ names

/// The interface's name: REFWIRE_NAME(I, "calc.v1")'s, or "" for an unnamed interface.
///   static_assert(interface_name_v<calculator> == "calc.v1");
template <class I>
inline constexpr std::string_view interface_name_v = [] {
  if constexpr (refwire::detail::has_type_name<I>) {
    return std::string_view(refwire_type_name(static_cast<I**>(nullptr)));
  } else {
    return std::string_view();
  }
}();

/// FNV-1a, 32 bits, of the bytes of every part in turn.
///   static_assert(fnv1a32({"a"}) == 0xe40c292cU);
constexpr std::uint32_t fnv1a32(std::initializer_list<std::string_view> parts) noexcept {
  std::uint32_t h = 2166136261U;
  for (std::string_view s : parts) {
    for (char c : s) {
      h ^= static_cast<unsigned char>(c);
      h *= 16777619U;
    }
  }
  return h;
}

/// A method's id: FNV-1a 32 of "<interface name>.<method>" ("<method>" when
/// the interface has no name). The same value method<M>::id has, at run time too.
///   std::uint32_t id = method_id("calc.v1", "add");   // == method<&calculator::add>::id
constexpr std::uint32_t method_id(std::string_view interface_name, std::string_view method) noexcept {
  if (interface_name.empty()) return fnv1a32({method});
  return fnv1a32({interface_name, ".", method});
}

/// The public member functions Boost.Describe lists for I (in described order).
template <class I>
using described_methods_t = boost::describe::describe_members<I, boost::describe::mod_public | boost::describe::mod_function>;

template <class I, class = void>
struct has_described_methods : std::false_type {};
template <class I>
struct has_described_methods<I, std::enable_if_t<boost::describe::has_describe_members<I>::value>>
    : std::bool_constant<(boost::mp11::mp_size<described_methods_t<I>>::value > 0)> {};

/// A class described with BOOST_DESCRIBE_STRUCT that lists at least one public member function.
///   static_assert(is_interface_v<calculator>);
template <class I>
inline constexpr bool is_interface_v = std::is_class_v<I> && has_described_methods<I>::value;

// --------------------------------------------------------- member pointers

/// What a pointer to member function says about its method: the class, the
/// result and the parameters (also const and noexcept members).
template <class P>
struct member_function : std::false_type {};
template <class R, class C, class... A>
struct member_function<R (C::*)(A...)> : std::true_type {
  using interface = C;
  using result = R;
  using args = boost::mp11::mp_list<A...>;
};
template <class R, class C, class... A>
struct member_function<R (C::*)(A...) const> : member_function<R (C::*)(A...)> {};
template <class R, class C, class... A>
struct member_function<R (C::*)(A...) noexcept> : member_function<R (C::*)(A...)> {};
template <class R, class C, class... A>
struct member_function<R (C::*)(A...) const noexcept> : member_function<R (C::*)(A...)> {};

/// A member pointer as a type: two are the same type when they are the same
/// template argument (how a method is found, without ==).
template <auto P>
struct ptr_tag {};

template <auto M>
struct same_method {
  template <class D>
  using fn = std::is_same<ptr_tag<M>, ptr_tag<D::pointer>>;
};

/// M's position among I's described methods (their count when it is none of them).
template <class I, auto M>
inline constexpr std::size_t described_index_v =
    boost::mp11::mp_find_if_q<described_methods_t<I>, same_method<M>>::value;

/// A parameter of type A: an out-parameter when it is a non-const lvalue reference.
template <class A>
inline constexpr bool is_out_param_v = std::is_lvalue_reference_v<A> && !std::is_const_v<std::remove_reference_t<A>>;

template <class V>
inline constexpr bool carried_by_every_codec = []<class... Fs>(boost::mp11::mp_list<Fs...>) {
  return (refwire::can_carry<V, Fs> && ...);
}(refwire::formats{});

/// The compile errors of a method's parameter (one static_assert, none
/// when it is fine); the instantiation notes name the interface, the method
/// and the 1-based position:
///   g++:   in 'constexpr bool ...::parameter_check() [with Interface = store; auto Method = &store::put;
///           long unsigned int Position = 2; Parameter = const char*]'
///   clang: in instantiation of function template specialization
///          '...::parameter_check<store, &store::put, 2, const char *>'
template <class Interface, auto Method, std::size_t Position, class Parameter>
constexpr bool parameter_check() {
  using V = std::remove_cvref_t<Parameter>;
  constexpr bool pointer = std::is_pointer_v<V> || std::is_member_pointer_v<V>;
  static_assert(!pointer,
                "refwire: a parameter of this RPC method is a pointer, which is not serializable (the server "
                "cannot see what it points to): take T, const T& or T& (an out-parameter); the note "
                "parameter_check<interface, method, position, type> names it");
  if constexpr (pointer) {
    return false;
  } else {
    constexpr bool carried = carried_by_every_codec<V>;
    static_assert(carried,
                  "refwire: a parameter of this RPC method is not serializable in every codec (binary, json, "
                  "protobuf): describe it with BOOST_DESCRIBE_STRUCT or specialize refwire::codec<T>; the note "
                  "parameter_check<interface, method, position, type> names it");
    constexpr bool constructible = !carried || std::is_default_constructible_v<V>;
    static_assert(constructible,
                  "refwire: a parameter of this RPC method is not default constructible (the server decodes it "
                  "into a value-initialized one); the note parameter_check<interface, method, position, type> "
                  "names it");
    return carried && constructible;
  }
}

/// The compile errors of a method's result: void or a serializable,
/// default-constructible value (not a reference, not a pointer).
template <class Interface, auto Method, class Result>
constexpr bool result_check() {
  if constexpr (std::is_void_v<Result>) {
    return true;
  } else {
    constexpr bool value_result = !std::is_reference_v<Result> && !std::is_pointer_v<Result>;
    static_assert(value_result,
                  "refwire: the result of this RPC method is a reference or a pointer: return void or a value; the "
                  "note result_check<interface, method, result> names it");
    if constexpr (!value_result) {
      return false;
    } else {
      constexpr bool ok =
          carried_by_every_codec<std::remove_cv_t<Result>> && std::is_default_constructible_v<Result>;
      static_assert(ok,
                    "refwire: the result of this RPC method is not serializable in every codec (binary, json, "
                    "protobuf) or not default constructible; the note result_check<interface, method, result> "
                    "names it");
      return ok;
    }
  }
}

/// M is a pointer to a member function of a class that describes its
/// methods, and is one of them.
template <auto M>
constexpr bool check_method() {
  using P = decltype(M);
  static_assert(member_function<P>::value,
                "refwire: method<M>: M must be a pointer to a member function of an interface (&interface::method)");
  if constexpr (!member_function<P>::value) {
    return false;
  } else {
    using I = typename member_function<P>::interface;
    static_assert(is_interface_v<I>,
                  "refwire: method<&I::m>: I is not an interface: describe its methods with "
                  "BOOST_DESCRIBE_STRUCT(I, (), (m, ...))");
    if constexpr (!is_interface_v<I>) {
      return false;
    } else {
      constexpr bool found = described_index_v<I, M> < boost::mp11::mp_size<described_methods_t<I>>::value;
      static_assert(found,
                    "refwire: method<&I::m>: m is not one of the methods BOOST_DESCRIBE_STRUCT(I, ...) lists: add "
                    "it there (overloaded methods are not supported)");
      return found;
    }
  }
}

/// The name of a method as a fixed array: "<interface>.<method>", or "<method>".
template <class I, class D>
struct method_spelling {
  static constexpr std::string_view interface_name = interface_name_v<I>;
  static constexpr std::string_view method_name = D::name;
  static constexpr std::size_t size =
      interface_name.empty() ? method_name.size() : interface_name.size() + 1 + method_name.size();
  static constexpr std::array<char, size> value = [] {
    std::array<char, size> a{};
    std::size_t n = 0;
    if (!interface_name.empty()) {
      for (char c : interface_name) a[n++] = c;
      a[n++] = '.';
    }
    for (char c : method_name) a[n++] = c;
    return a;
  }();
  static constexpr std::string_view view{value.data(), size};
};

/// M's parameters and result are carried (one error for the first that is not).
template <auto M>
constexpr bool check_signature() {
  if constexpr (!check_method<M>()) {
    return false;
  } else {
    using traits = member_function<decltype(M)>;
    using I = typename traits::interface;
    return []<class... A, std::size_t... K>(boost::mp11::mp_list<A...>, std::index_sequence<K...>) {
      return (parameter_check<I, M, K + 1, A>() && ...);
    }(typename traits::args{}, std::make_index_sequence<boost::mp11::mp_size<typename traits::args>::value>{}) &&
           result_check<I, M, typename traits::result>();
  }
}

/// A method that is not one (the error has been reported): empty, so that
/// no second error follows; every use checks `valid` first.
template <auto M, bool Valid = check_signature<M>()>
struct method_base {
  static constexpr bool valid = false;
  using interface = void;
  using result = void;
  using args = boost::mp11::mp_list<>;
  static constexpr std::size_t index = 0;
  struct spelling {
    static constexpr std::string_view method_name{};
    static constexpr std::string_view view{};
  };
  static constexpr std::size_t arity = 0;
  static constexpr std::array<std::size_t, 0> out_positions{};
};

template <auto M>
struct method_base<M, true> {
  static constexpr bool valid = true;
  using traits = member_function<decltype(M)>;
  using interface = typename traits::interface;
  using result = typename traits::result;
  using args = typename traits::args;  // the declared parameter types, references kept
  static constexpr std::size_t index = described_index_v<interface, M>;
  using descriptor = boost::mp11::mp_at_c<described_methods_t<interface>, index>;
  using spelling = method_spelling<interface, descriptor>;
  static constexpr std::size_t arity = boost::mp11::mp_size<args>::value;

  /// Positions of the out-parameters, in order.
  static constexpr auto out_positions = []<class... A>(boost::mp11::mp_list<A...>) {
    constexpr std::array<bool, sizeof...(A)> outs{is_out_param_v<A>...};
    std::array<std::size_t, (std::size_t{0} + ... + (is_out_param_v<A> ? 1 : 0))> at{};
    std::size_t n = 0;
    for (std::size_t k = 0; k < outs.size(); ++k) {
      if (outs[k]) at[n++] = k;
    }
    return at;
  }(args{});
};

template <class L>
struct params_of;
template <class... A>
struct params_of<boost::mp11::mp_list<A...>> {
  using type = std::tuple<std::remove_cvref_t<A>...>;
};

template <class Params, auto Positions, class = std::make_index_sequence<Positions.size()>>
struct outs_of;
template <class Params, auto Positions, std::size_t... J>
struct outs_of<Params, Positions, std::index_sequence<J...>> {
  using type = std::tuple<std::tuple_element_t<Positions[J], Params>...>;
};

template <class R, class Outs>
struct response_of;
template <class... O>
struct response_of<void, std::tuple<O...>> {
  using type = std::tuple<O...>;
};
template <class R, class... O>
struct response_of<R, std::tuple<O...>> {
  using type = std::tuple<std::remove_cv_t<R>, O...>;
};

/// Everything known at compile time about the method M = &I::m:
///   using m = method<&calculator::add>;
///   m::interface (calculator), m::result (int), m::params (std::tuple<int, int>),
///   m::outs (the out-parameters' value types), m::index (0), m::name ("add"),
///   m::full_name ("calc.v1.add"), m::id, m::one_way_ok (void and no out-parameter: notify allowed)
/// A member pointer that is not one of I's described methods, or a parameter
/// that is a pointer or not serializable in every codec, is a compile error
/// naming the method (and the parameter's position).
template <auto M>
struct method : method_base<M> {
  using base = method_base<M>;
  using typename base::interface;
  using typename base::result;
  /// The parameters' value types: what the server decodes and the client encodes.
  using params = typename params_of<typename base::args>::type;
  /// The value types of the non-const lvalue reference parameters, in order.
  using outs = typename outs_of<params, base::out_positions>::type;
  /// What the response carries: the result (unless void), then the out-parameters.
  using response = typename response_of<result, outs>::type;
  using base::index;
  /// False when M is not a method or its signature is not carried (that was
  /// one compile error already; nothing is generated for it).
  using base::valid;
  static constexpr std::string_view name = base::spelling::method_name;
  static constexpr std::string_view full_name = base::spelling::view;
  static constexpr std::uint32_t id = fnv1a32({full_name});
  static constexpr bool one_way_ok = std::is_void_v<result> && std::tuple_size_v<outs> == 0;
};

// ------------------------------------------------------------ signatures

/// The signature with every struct body ("{i32 x;f64 y}", however nested)
/// collapsed to "{}": what stays equal when argument structs gain or lose
/// fields, as JSON and protobuf peers allow. An enum's enumerator list
/// ("enum:i32{low=0,high=1}", after the underlying type's name) is kept.
///   collapse_struct_bodies("({i32 x;vector<{string s}> v},&enum:u8{a=0})->void") == "({},&enum:u8{a=0})->void"
inline std::string collapse_struct_bodies(std::string_view signature) {
  std::string out;
  out.reserve(signature.size());
  for (std::size_t i = 0; i < signature.size(); ++i) {
    const char c = signature[i];
    const bool enum_body =
        i > 0 && ((signature[i - 1] >= '0' && signature[i - 1] <= '9') ||
                  (signature[i - 1] >= 'a' && signature[i - 1] <= 'z') || (signature[i - 1] >= 'A' && signature[i - 1] <= 'Z'));
    if (c != '{' || enum_body) {
      out += c;
      continue;
    }
    std::size_t depth = 1;
    while (depth > 0 && ++i < signature.size()) {
      if (signature[i] == '{') ++depth;
      if (signature[i] == '}') --depth;
    }
    out += "{}";
  }
  return out;
}

/// "(i32,&{i32 x})": the parameters' type names, '&' before an out-parameter.
template <auto M>
std::string parameter_list() {
  if constexpr (!method<M>::valid) return {};  // reported at compile time
  std::string s = "(";
  [&]<class... A>(boost::mp11::mp_list<A...>) {
    bool first = true;
    ((s += first ? "" : ",", first = false, s += is_out_param_v<A> ? "&" : "",
      s += refwire::type_name<std::remove_cvref_t<A>>()),
     ...);
  }(typename method<M>::args{});
  s += ')';
  return s;
}

/// "(i32,i32)->i32", "(&{...})->void": the parameter list, then the result's type name.
template <auto M>
std::string signature_of() {
  if constexpr (!method<M>::valid) return {};  // reported at compile time
  using R = typename method<M>::result;
  std::string s = parameter_list<M>();
  s += "->";
  if constexpr (std::is_void_v<R>) {
    s += "void";
  } else {
    s += refwire::type_name<std::remove_cv_t<R>>();
  }
  return s;
}

/// One method as the handshake lists it.
///   const method_info& add = methods_of<calculator>()[0];
///   // add.id, add.name "add", add.full_name "calc.v1.add", add.signature "(i32,i32)->i32", add.shape
struct method_info {
  std::uint32_t id = 0;
  std::string name;       ///< "add"
  std::string full_name;  ///< "calc.v1.add" ("add" for an unnamed interface)
  std::string signature;  ///< "(i32,i32)->i32"; out-parameters with '&'; "()->void"
  std::string shape;      ///< the signature with struct bodies collapsed to "{}"
};

template <auto M>
method_info info_of() {
  using m = method<M>;
  method_info info;
  info.id = m::id;
  info.name = std::string(m::name);
  info.full_name = std::string(m::full_name);
  info.signature = signature_of<M>();
  info.shape = collapse_struct_bodies(info.signature);
  return info;
}

/// True when no two of I's methods have the same id.
template <class I>
constexpr bool method_ids_distinct() {
  return []<template <class...> class L, class... D>(L<D...>) {
    constexpr std::array<std::uint32_t, sizeof...(D)> ids{method<D::pointer>::id...};
    for (std::size_t i = 0; i < ids.size(); ++i) {
      for (std::size_t j = i + 1; j < ids.size(); ++j) {
        if (ids[i] == ids[j]) return false;
      }
    }
    return true;
  }(described_methods_t<I>{});
}

/// I's methods, in described order; built once (thread-safe), then shared.
///   for (const method_info& m : methods_of<calculator>()) std::cout << m.full_name << m.signature << '\n';
template <class I>
const std::vector<method_info>& methods_of() {
  static_assert(is_interface_v<I>,
                "refwire: methods_of<I>: I is not an interface: describe its methods with "
                "BOOST_DESCRIBE_STRUCT(I, (), (m, ...))");
  static_assert(method_ids_distinct<I>(), "refwire: two methods of this interface have the same method id (a "
                                          "32-bit hash of their names): rename one");
  static const std::vector<method_info> table = []<template <class...> class L, class... D>(L<D...>) {
    return std::vector<method_info>{info_of<D::pointer>()...};
  }(described_methods_t<I>{});
  return table;
}

// -------------------------------------------------------------- encoding

/// The tuple element an argument travels as: a reference to it when its type
/// is the parameter's, otherwise the parameter type made from it (a
/// const char* for a std::string parameter).
template <class Arg, class Param>
using argument_slot_t = std::conditional_t<std::is_same_v<std::remove_cv_t<Arg>, Param>, const Param&, Param>;

/// The format tag with id c, or an rpc_error(invalid_argument) for a value no format has.
template <class Visitor>
decltype(auto) with_codec(codec c, Visitor&& f) {
  return refwire::visit_format(static_cast<std::uint8_t>(c), std::forward<Visitor>(f),
                               [](std::uint8_t id) -> typename refwire::detail::format_visit<Visitor>::type {
                                 throw rpc_error(status_code::invalid_argument,
                                                 "unknown codec " + std::to_string(id));
                               });
}

/// The decode of a payload in codec c into out; an unknown codec is an error.
template <class T>
refwire::error decode_payload(codec c, std::span<const std::byte> in, T& out) {
  return refwire::visit_format(
      static_cast<std::uint8_t>(c), [&](auto f) { return refwire::deserialize<decltype(f)>(in, out); },
      [](std::uint8_t id) {
        return refwire::error(refwire::errc::invalid_value, 0, "$", "unknown codec " + std::to_string(id));
      });
}

/// The client's request payload: the arguments, as the tuple of M's
/// parameter types, in codec c, into out (cleared first; capacity kept). The
/// arguments are not copied: each is encoded through a reference, unless its
/// type differs from the parameter's (then the parameter is made from it).
/// Throws refwire::encode_error when an argument has no encoding in c
/// (NaN in JSON, invalid UTF-8 in protobuf), rpc_error(invalid_argument) for
/// a codec value that is none.
///   std::vector<std::byte> payload;
///   encode_request<&calculator::add>(refwire::rpc::codec::binary, payload, 2, 3);
template <auto M, class... Args>
void encode_request_checked(codec c, std::vector<std::byte>& out, const Args&... args) {
  using m = method<M>;
  using params = typename m::params;
  static_assert(sizeof...(Args) == std::tuple_size_v<params>,
                "refwire: call<&I::m>(args...): the number of arguments is not the method's number of parameters");
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    static_assert((std::is_convertible_v<const Args&, std::tuple_element_t<K, params>> && ...),
                  "refwire: call<&I::m>(args...): an argument does not convert to its parameter's type");
    const std::tuple<argument_slot_t<Args, std::tuple_element_t<K, params>>...> request(args...);
    with_codec(c, [&](auto f) { refwire::serialize<decltype(f)>(request, out); });
  }(std::index_sequence_for<Args...>{});
}

template <auto M, class... Args>
void encode_request(codec c, std::vector<std::byte>& out, const Args&... args) {
  if constexpr (method<M>::valid) encode_request_checked<M>(c, out, args...);  // else reported at compile time
}

/// Large blobs an encode leaves in the arguments' own memory (binary only):
/// see refwire::detail::bin::gather_list.
using gather_list = refwire::detail::bin::gather_list;
/// Where the rest of a reply comes from while it is decoded (binary only).
using blob_source = refwire::detail::blob_source;

/// encode_request, except that with the binary codec and a gather list, the
/// arguments' large blobs (gather_list::min_blob bytes and more) are not
/// copied into out but listed in gather, pointing into the caller's
/// arguments: the request is out with the blobs put back at their places,
/// valid while the arguments are. Only when every argument travels by
/// reference (an argument converted to its parameter's type is a temporary:
/// then everything is copied and gather is left empty).
///   gather_list g;  encode_request_gathered<&store::put>(codec::binary, out, &g, blob);  // g.count == 1
template <auto M, class... Args>
void encode_request_gathered(codec c, std::vector<std::byte>& out, gather_list* gather, const Args&... args) {
  if constexpr (method<M>::valid) {
    using params = typename method<M>::params;
    constexpr bool by_reference = []<std::size_t... K>(std::index_sequence<K...>) {
      if constexpr (sizeof...(Args) != std::tuple_size_v<params>) {
        return false;
      } else {
        return (std::is_same_v<std::remove_cv_t<Args>, std::tuple_element_t<K, params>> && ...);
      }
    }(std::index_sequence_for<Args...>{});
    if constexpr (by_reference) {
      if (gather != nullptr && c == codec::binary) {
        const std::tuple<const Args&...> request(args...);
        out.clear();
        refwire::detail::bin::encode_gather(request, out, *gather);
        return;
      }
    }
    if (gather != nullptr) gather->clear();
    encode_request_checked<M>(c, out, args...);
  }
}

/// Where the client's decode_response puts a method's result: `value` (an
/// R), or nothing for a void method.
///   result_storage<&calculator::add> r;  decode_response<&calculator::add>(c, payload, r, a, b);  use(r.value);
template <class R>
struct result_holder {
  R value{};
};
template <>
struct result_holder<void> {};

template <auto M>
using result_storage = result_holder<std::remove_cv_t<typename method<M>::result>>;

template <auto M, class... Args>
refwire::error decode_response_checked(codec c, std::span<const std::byte> in, blob_source* source,
                                      result_storage<M>& result, Args&&... args) {
  using m = method<M>;
  using R = typename m::result;
  constexpr auto outs = m::out_positions;
  static_assert(sizeof...(Args) == std::tuple_size_v<typename m::params>,
                "refwire: decode_response<M>(..., args...): pass the call's arguments, all of them");
  typename m::response response{};
  if (source != nullptr && c == codec::binary) {
    if (refwire::error e = refwire::detail::bin::decode_streaming(in, response, refwire::decode_options{}, *source))
      return e;
  } else if (refwire::error e = decode_payload(c, in, response)) {
    return e;
  }
  constexpr std::size_t first = std::is_void_v<R> ? 0 : 1;
  if constexpr (!std::is_void_v<R>) result.value = std::move(std::get<0>(response));
  auto refs = std::forward_as_tuple(args...);
  [&]<std::size_t... J>(std::index_sequence<J...>) {
    using arg_types = boost::mp11::mp_list<Args...>;
    static_assert(((std::is_lvalue_reference_v<boost::mp11::mp_at_c<arg_types, outs[J]>> &&
                    !std::is_const_v<std::remove_reference_t<boost::mp11::mp_at_c<arg_types, outs[J]>>>) &&
                   ...),
                  "refwire: an out-parameter (T&) needs a non-const lvalue argument to receive the server's value");
    ((std::get<outs[J]>(refs) = std::move(std::get<first + J>(response))), ...);
  }(std::make_index_sequence<outs.size()>{});
  return {};
}

/// The client's side of a response payload in codec c: the result goes into
/// `result`, each out-parameter is moved into the matching argument (the
/// caller's args, in the call's order; the others are left alone). Returns
/// the decode's error (the caller turns it into an rpc_error); on failure no
/// argument and no result has been written. Inputs may be passed as
/// rvalues; an out-parameter's argument must be a non-const lvalue.
///   result_storage<&shop::reserve> r;
///   if (refwire::error e = decode_response<&shop::reserve>(codec, payload, r, order)) fail(e);
template <auto M, class... Args>
[[nodiscard]] refwire::error decode_response(codec c, std::span<const std::byte> in, result_storage<M>& result,
                                             Args&&... args) {
  if constexpr (method<M>::valid) {
    return decode_response_checked<M>(c, in, nullptr, result, std::forward<Args>(args)...);
  } else {
    return {};  // reported at compile time
  }
}

/// decode_response of a reply of which `in` is the beginning and, when
/// source is not nullptr (binary only), source holds the rest: large blobs
/// past `in` are read from it straight into the result's storage (see
/// refwire::detail::bin::decode_streaming). With source nullptr, the same as
/// decode_response.
template <auto M, class... Args>
[[nodiscard]] refwire::error decode_response_from(codec c, std::span<const std::byte> in, blob_source* source,
                                                  result_storage<M>& result, Args&&... args) {
  if constexpr (method<M>::valid) {
    return decode_response_checked<M>(c, in, source, result, std::forward<Args>(args)...);
  } else {
    return {};  // reported at compile time
  }
}

// ---------------------------------------------------------------- server

/// How a call ended on the server: ok (the response holds the reply), or the
/// status, the exception's type name and its message.
///   call_outcome o;  m.invoke(m.impl, codec, request, response, o);
///   if (o.code != status_code::ok) send_error(o.code, o.type, o.message);
struct call_outcome {
  status_code code = status_code::ok;
  std::string type;     ///< "std::out_of_range", "refwire::rpc::rpc_error", "unknown exception"; empty when ok
  std::string message;  ///< the exception's what(), or why the arguments do not decode
};

/// Decodes the arguments, calls the method on impl, encodes the reply.
using invoke_fn = void (*)(void* impl, codec c, std::span<const std::byte> request, std::vector<std::byte>& response,
                           call_outcome& outcome);
/// invoke_fn for a binary request of which `request` is the beginning and
/// `rest` holds the others (a large argument read as it arrived).
using invoke_from_fn = void (*)(void* impl, codec c, std::span<const std::byte> request, blob_source& rest,
                                std::vector<std::byte>& response, call_outcome& outcome);
/// Where the first large run of the arguments (a blob, a string, a vector of
/// arithmetic values of gather_list::min_blob bytes or more) that goes past
/// `request` starts, when `request` is the beginning of binary arguments of
/// `size` bytes: true with its offset and length (find_streamed_run).
using probe_fn = bool (*)(std::span<const std::byte> request, std::size_t size, std::size_t& at, std::size_t& length);

/// One method a server serves: what the handshake lists, the object, and how to call it.
///   for (const served_method& s : serve_table<calculator>(impl)) by_id[s.info.id] = s;
struct served_method {
  method_info info;
  void* impl = nullptr;  ///< the I* the table was built for, as void*
  invoke_fn invoke = nullptr;
  bool one_way_ok = false;  ///< void, no out-parameter: may be called with notify
  invoke_from_fn invoke_from = nullptr;
  probe_fn probe = nullptr;
};

/// The readable name of a type_info ("std::out_of_range"), demangled by the C++ ABI.
///   std::string t = demangled_name(typeid(e));
inline std::string demangled_name(const std::type_info& t) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(t.name(), nullptr, nullptr, &status),
                                                    std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(t.name());
}

/// Sets outcome from the exception being handled (inside a catch).
inline void outcome_of_current_exception(call_outcome& outcome) {
  try {
    throw;
  } catch (const remote_error& e) {
    outcome.code = e.code();
    outcome.type = e.type();
    outcome.message = e.what();
  } catch (const rpc_error& e) {
    outcome.code = e.code();
    outcome.type = demangled_name(typeid(e));
    outcome.message = e.what();
    if (to_string(outcome.code) == "unknown" || outcome.code == status_code::ok) {
      // a code the wire cannot carry (a cast number, or ok thrown): internal, the number kept in the message
      outcome.message += " (status code " + std::to_string(static_cast<unsigned>(outcome.code)) + ")";
      outcome.code = status_code::internal;
    }
  } catch (const std::exception& e) {
    outcome.code = status_code::internal;
    outcome.type = demangled_name(typeid(e));
    outcome.message = e.what();
  } catch (...) {
    outcome.code = status_code::internal;
    outcome.type = "unknown exception";
    outcome.message = "the handler threw an exception that is not a std::exception";
  }
}

/// The argument a handler gets for parameter A from the decoded value v:
/// an lvalue for references (out-parameters are written there), an rvalue otherwise.
template <class A, class V>
decltype(auto) handler_argument(V& v) {
  if constexpr (std::is_lvalue_reference_v<A>) {
    return static_cast<V&>(v);
  } else {
    return static_cast<V&&>(v);
  }
}

/// Requests up to this size decode into a thread's reused arguments (below).
inline constexpr std::size_t reused_params_limit = 64 * 1024;

/// A thread's arguments of M, reused from call to call: decoding into them
/// keeps the capacity of their strings and vectors, so a small blob or string
/// argument allocates nothing in steady state. Only with the binary codec,
/// which is positional and writes every field (JSON and protobuf leave a
/// missing field as it was, so they decode into fresh values), and only for
/// requests of at most reused_params_limit bytes, so what a thread keeps is
/// bounded by about that much per method.
template <auto M>
typename method<M>::params& reused_params() {
  thread_local typename method<M>::params p{};
  return p;
}

template <auto M>
void invoke_checked(void* impl, codec c, std::span<const std::byte> request, blob_source* source,
                    std::vector<std::byte>& response, call_outcome& outcome) {
  using m = method<M>;
  using I = typename m::interface;
  using R = typename m::result;
  constexpr auto outs = m::out_positions;
  response.clear();
  outcome.code = status_code::ok;
  outcome.type.clear();
  outcome.message.clear();
  std::optional<typename m::params> fresh;
  typename m::params& params = c == codec::binary && source == nullptr && request.size() <= reused_params_limit
                                   ? reused_params<M>()
                                   : fresh.emplace();
  const refwire::error failed = source != nullptr && c == codec::binary
                                   ? refwire::detail::bin::decode_streaming(request, params, {}, *source)
                                   : decode_payload(c, request, params);
  if (const refwire::error& e = failed) {
    outcome.code = status_code::invalid_argument;
    outcome.message = std::string(m::full_name) + ": the arguments do not decode as " + parameter_list<M>() + ": " +
                      e.message();
    return;
  }
  I* self = static_cast<I*>(impl);
  const auto call = [&]<std::size_t... K>(std::index_sequence<K...>) -> R {
    return (self->*M)(
        handler_argument<boost::mp11::mp_at_c<typename m::args, K>>(std::get<K>(params))...);
  };
  const auto reply = [&](const auto&... result) {
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      const auto tuple = std::forward_as_tuple(result..., std::get<outs[J]>(params)...);
      try {
        with_codec(c, [&](auto f) { refwire::serialize<decltype(f)>(tuple, response); });
      } catch (const refwire::encode_error& e) {
        response.clear();
        outcome.code = status_code::internal;
        outcome.type = "refwire::encode_error";
        outcome.message = std::string(m::full_name) + ": the reply does not encode: " + e.what();
      }
    }(std::make_index_sequence<outs.size()>{});
  };
  try {
    if constexpr (std::is_void_v<R>) {
      call(std::make_index_sequence<m::base::arity>{});
      reply();
    } else {
      const R result = call(std::make_index_sequence<m::base::arity>{});
      reply(result);
    }
  } catch (...) {
    response.clear();
    outcome_of_current_exception(outcome);
  }
}

/// The server's side of one call of M on impl (an I*); see invoke_fn.
/// Arguments that do not decode: invalid_argument, "calc.v1.add: the
/// arguments do not decode as (i32,i32): <the decode error>". A handler that
/// throws: rpc_error keeps its code; anything else is internal, with the
/// exception's type name. A result that does not encode: internal.
/// `response` is cleared first and keeps its capacity.
template <auto M>
void invoke(void* impl, codec c, std::span<const std::byte> request, std::vector<std::byte>& response,
            call_outcome& outcome) {
  // else reported at compile time
  if constexpr (method<M>::valid) invoke_checked<M>(impl, c, request, nullptr, response, outcome);
}

/// invoke of a binary request whose beginning is `request` and whose rest
/// `rest` holds: its first large run is handed over (a std::vector<std::byte>
/// argument takes the source's buffer) or copied from there.
template <auto M>
void invoke_from(void* impl, codec c, std::span<const std::byte> request, blob_source& rest,
                 std::vector<std::byte>& response, call_outcome& outcome) {
  if constexpr (method<M>::valid) invoke_checked<M>(impl, c, request, &rest, response, outcome);
}

/// probe_fn of M: where its arguments' first large run starts.
template <auto M>
bool probe_request(std::span<const std::byte> request, std::size_t size, std::size_t& at, std::size_t& length) {
  if constexpr (method<M>::valid) {
    return refwire::detail::bin::find_streamed_run<typename method<M>::params>(request, size, at, length);
  } else {
    return false;
  }
}

/// The table a server dispatches from: one entry per method of I, in
/// described order, calling them on impl (which must outlive the table).
///   struct calc_impl : calculator { int add(int a, int b) override { return a + b; } ... };
///   calc_impl impl;
///   std::vector<served_method> table = serve_table<calculator>(impl);
template <class I>
std::vector<served_method> serve_table(I& impl) {
  const std::vector<method_info>& infos = methods_of<I>();
  return [&]<template <class...> class L, class... D, std::size_t... K>(L<D...>, std::index_sequence<K...>) {
    return std::vector<served_method>{
        served_method{infos[K], static_cast<void*>(&impl), &invoke<D::pointer>, method<D::pointer>::one_way_ok,
                      &invoke_from<D::pointer>, &probe_request<D::pointer>}...};
  }(described_methods_t<I>{}, std::make_index_sequence<boost::mp11::mp_size<described_methods_t<I>>::value>{});
}

}  // namespace refwire::rpc::detail
