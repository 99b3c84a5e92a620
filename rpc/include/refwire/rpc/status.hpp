#pragma once
// refwire/rpc/status.hpp: the status codes of an RPC failure, and the codecs
// a connection can speak.
//
//   catch (const refwire::rpc::rpc_error& e) {
//     if (e.code() == refwire::rpc::status_code::deadline_exceeded) retry();
//   }

#include <cstdint>
#include <string_view>

namespace refwire::rpc {

/// Why a call failed (the canonical codes gRPC users know). The numbers are
/// the ones on the wire (docs/rpc-protocol.md, "error").
enum class status_code : std::uint8_t {
  ok = 0,
  cancelled = 1,
  invalid_argument = 3,
  deadline_exceeded = 4,
  resource_exhausted = 8,
  unimplemented = 12,
  internal = 13,
  unavailable = 14,
  unauthenticated = 16,
};

/// "ok", "cancelled", "invalid_argument", ... ("unknown" for a number that is none of them).
[[nodiscard]] std::string_view to_string(status_code c) noexcept;

/// The serializer a connection uses for arguments and results. The values are
/// the format ids of refwire's format registry (refwire/serialization/formats.hpp).
///   refwire::rpc::client<calculator> c(uri, {.codec = refwire::rpc::codec::json});
enum class codec : std::uint8_t { binary = 1, json = 2, protobuf = 3 };

/// "binary", "json", "protobuf" ("unknown" otherwise).
[[nodiscard]] std::string_view to_string(codec c) noexcept;

}  // namespace refwire::rpc
