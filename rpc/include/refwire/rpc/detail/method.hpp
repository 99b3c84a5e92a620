#pragma once
// Interfaces and their methods, at compile time: which methods an interface
// has (Boost.Describe), their ids and signatures, and how arguments and
// results are encoded with a codec chosen at run time (refwire's format
// registry). Used by client<I> and server::serve<I>; no sockets here.
//
// SPEC (to be implemented; names are what client.hpp/server.cpp use):
//
//   template <class I> inline constexpr std::string_view interface_name_v;   // REFWIRE_NAME(I, "calc.v1") or ""
//   constexpr std::uint32_t method_id(std::string_view interface_name, std::string_view method) noexcept;
//       // FNV-1a 32-bit of "calc.v1.add" ("add" when the interface is unnamed); usable at run time too
//   template <class I> inline constexpr bool is_interface_v;   // described struct with >= 1 described public member function
//
//   template <auto M> struct method {          // M = &I::m; resolved by template-argument identity, never by ==
//     using interface = I;  using result = R;  // R may be void
//     using params = std::tuple<std::remove_cvref_t<A>...>;   // what the server decodes
//     using outs = std::tuple<...>;            // the decayed types of the non-const lvalue reference params, in order
//     static constexpr std::size_t index;      // position among I's described methods
//     static constexpr std::string_view name;  // "add"
//     static constexpr std::uint32_t id;       // method_id(interface_name_v<I>, name), via a constexpr fixed array
//     static constexpr bool one_way_ok;        // void result and no out-parameters (notify allowed)
//   };
//
//   struct method_info { std::uint32_t id; std::string name; std::string full_name; std::string signature; std::string shape; };
//   template <class I> const std::vector<method_info>& methods_of();  // in described order, built once
//       // signature: "(i32,i32)->i32", out-params with '&': "({...},&{...})->i32", void: "()->void";
//       // shape: the signature with every struct body collapsed to "{}" (what JSON/protobuf peers compare)
//
//   // client: arguments as the caller passed them, never copied
//   template <auto M, class... Args>
//   void encode_request(rpc::codec c, std::vector<std::byte>& out, const Args&... args);   // out cleared first
//   template <auto M, class... Args>
//   [[nodiscard]] refwire::error decode_response(rpc::codec c, std::span<const std::byte> in,
//                                                result_storage<M>& result, Args&... args);
//       // writes the result into `result` and the out-parameters into the matching args
//
//   // server
//   struct call_outcome { status_code code = status_code::ok; std::string type; std::string message; };
//   using invoke_fn = void (*)(void* impl, rpc::codec c, std::span<const std::byte> request,
//                              std::vector<std::byte>& response, call_outcome& outcome);
//   struct served_method { method_info info; void* impl; invoke_fn invoke; bool one_way_ok; };
//   template <class I> std::vector<served_method> serve_table(I& impl);
