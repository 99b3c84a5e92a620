#pragma once
// refwire/serialization/formats.hpp: the format registry. Every format refwire
// has, as a compile-time list and by its one-byte id (the byte that snapshot
// headers record; RPC frames carry it too). The one header that includes every format.
//
//   // the format id read from a file header:
//   if (!refwire::visit_format(id, [&](auto f) { value = refwire::deserialize<point, decltype(f)>(payload); }))
//     fail("unknown format id " + std::to_string(id) + " (" + std::string(refwire::format_name(id)) + ")");
//
//   static_assert(refwire::can_carry<point, refwire::json>);    // (can_carry is from format.hpp)
//   std::string_view n = refwire::format_name(2);              // "json"

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <refwire/serialization/binary.hpp>
#include <refwire/serialization/format.hpp>
#include <refwire/serialization/json.hpp>
#include <refwire/serialization/protobuf.hpp>

namespace refwire {

/// Every format, in id order. Adding a format is its header above and one
/// entry here; snapshot loading picks it up by its id (and so does the RPC codec selection).
///
///   boost::mp11::mp_for_each<refwire::formats>([](auto f) { std::cout << decltype(f)::name << '\n'; });
using formats = boost::mp11::mp_list<binary, json, protobuf>;

namespace detail {

template <class List>
struct format_ids;

template <class... Fs>
struct format_ids<boost::mp11::mp_list<Fs...>> {
  static constexpr std::array<std::uint8_t, sizeof...(Fs)> value{static_cast<std::uint8_t>(Fs::id)...};
};

template <class... Fs>
constexpr bool all_formats(boost::mp11::mp_list<Fs...>) {
  return (format<Fs> && ...);
}

template <class List>
constexpr bool format_ids_unique() {
  constexpr auto& ids = format_ids<List>::value;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    for (std::size_t j = i + 1; j < ids.size(); ++j) {
      if (ids[i] == ids[j]) return false;
    }
  }
  return true;
}

/// The position in List of the format whose id is `id`, or the list's size.
template <class List>
constexpr std::size_t format_index(std::uint8_t id) noexcept {
  constexpr auto& ids = format_ids<List>::value;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == id) return i;
  }
  return ids.size();
}

template <class Visitor>
struct format_visit {
  template <class F>
  using result = std::invoke_result_t<Visitor, F>;
  using results = boost::mp11::mp_transform<result, formats>;
  /// What the visitor returns for the first format (it must be the same for all).
  using type = boost::mp11::mp_front<results>;
  static constexpr bool same_for_all = boost::mp11::mp_all_of_q<
      results, boost::mp11::mp_bind_front<std::is_same, type>>::value;
};

template <class Visitor>
constexpr decltype(auto) visit_known(std::size_t index, Visitor&& f) {
  return boost::mp11::mp_with_index<boost::mp11::mp_size<formats>::value>(
      index, [&](auto i) -> typename format_visit<Visitor>::type {
        return std::forward<Visitor>(f)(boost::mp11::mp_at_c<formats, decltype(i)::value>{});
      });
}

}  // namespace detail

static_assert(detail::all_formats(formats{}), "refwire: every entry of refwire::formats must be a refwire::format");
static_assert(detail::format_ids_unique<formats>(), "refwire: two entries of refwire::formats have the same id");

/// Calls f(F{}) for the format F whose F::id is `id`, and returns true; returns
/// false, calling nothing, when no format has that id (input from another
/// program or a damaged byte: report it, never guess). f is called with a
/// value of the tag, so `decltype(f)` inside a generic lambda is the format;
/// it must return void (to get a value back, use the three-argument form).
///
///   // a format id from a message header of your own protocol
///   if (!refwire::visit_format(header.format, [&](auto f) { handler.use<decltype(f)>(); }))
///     reject("unknown format id " + std::to_string(header.format));
template <class Visitor>
[[nodiscard]] constexpr bool visit_format(std::uint8_t id, Visitor&& f) {
  using visit = detail::format_visit<Visitor>;
  static_assert(visit::same_for_all && std::is_void_v<typename visit::type>,
                "refwire: visit_format(id, f): f returns a value; pass what to return for an unknown id "
                "too: visit_format(id, f, on_unknown)");
  const std::size_t index = detail::format_index<formats>(id);
  if (index == boost::mp11::mp_size<formats>::value) return false;
  detail::visit_known(index, std::forward<Visitor>(f));
  return true;
}

/// Returns f(F{}) for the format F whose F::id is `id`, or on_unknown(id) when
/// no format has that id. f must return the same type R for every format;
/// on_unknown's result must convert to R (a handler that throws, declared
/// `-> R`, fits any R).
///
///   // snapshot-style loading: the format id from a file header
///   config c;
///   refwire::error e = refwire::visit_format(
///       header.format, [&](auto f) { return refwire::deserialize<decltype(f)>(payload, c); },
///       [&](std::uint8_t id) -> refwire::error { throw load_error(path, "unknown format id", id); });
///
///   std::string_view name = refwire::visit_format(id, [](auto f) { return decltype(f)::name; },
///                                                 [](std::uint8_t) { return std::string_view("?"); });
template <class Visitor, class OnUnknown>
  requires std::invocable<OnUnknown, std::uint8_t>
constexpr typename detail::format_visit<Visitor>::type visit_format(std::uint8_t id, Visitor&& f,
                                                                    OnUnknown&& on_unknown) {
  using visit = detail::format_visit<Visitor>;
  using R = typename visit::type;
  static_assert(visit::same_for_all, "refwire: visit_format(id, f, on_unknown): f must return the same type "
                                     "for every format");
  static_assert(std::is_void_v<R> || std::is_convertible_v<std::invoke_result_t<OnUnknown, std::uint8_t>, R>,
                "refwire: visit_format(id, f, on_unknown): on_unknown(id) must return what f returns (declare a "
                "handler that throws `-> R`)");
  const std::size_t index = detail::format_index<formats>(id);
  if (index == boost::mp11::mp_size<formats>::value) {
    return static_cast<R>(std::forward<OnUnknown>(on_unknown)(id));
  }
  return detail::visit_known(index, std::forward<Visitor>(f));
}

/// The name of the format with this id ("binary", "json", "protobuf"), or
/// "unknown": for error messages about an id read from input.
///
///   log("peer asked for codec " + std::string(refwire::format_name(id)));
[[nodiscard]] constexpr std::string_view format_name(std::uint8_t id) noexcept {
  return visit_format(id, [](auto f) { return std::string_view(decltype(f)::name); },
                      [](std::uint8_t) { return std::string_view("unknown"); });
}

}  // namespace refwire
