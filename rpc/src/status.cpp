// The names of status codes, codecs and frame kinds (what messages and logs print).
#include <refwire/rpc/detail/protocol.hpp>
#include <refwire/rpc/status.hpp>

#include <string_view>

namespace refwire::rpc {

std::string_view to_string(status_code c) noexcept {
  switch (c) {
    case status_code::ok: return "ok";
    case status_code::cancelled: return "cancelled";
    case status_code::invalid_argument: return "invalid_argument";
    case status_code::deadline_exceeded: return "deadline_exceeded";
    case status_code::resource_exhausted: return "resource_exhausted";
    case status_code::unimplemented: return "unimplemented";
    case status_code::internal: return "internal";
    case status_code::unavailable: return "unavailable";
    case status_code::unauthenticated: return "unauthenticated";
  }
  return "unknown";
}

std::string_view to_string(codec c) noexcept {
  switch (c) {
    case codec::binary: return "binary";
    case codec::json: return "json";
    case codec::protobuf: return "protobuf";
  }
  return "unknown";
}

namespace detail {

std::string_view to_string(frame_kind k) noexcept {
  switch (k) {
    case frame_kind::handshake: return "handshake";
    case frame_kind::handshake_reply: return "handshake_reply";
    case frame_kind::request: return "request";
    case frame_kind::response: return "response";
    case frame_kind::error: return "error";
    case frame_kind::one_way: return "one_way";
    case frame_kind::cancel: return "cancel";
    case frame_kind::ping: return "ping";
    case frame_kind::pong: return "pong";
  }
  return "unknown";
}

}  // namespace detail
}  // namespace refwire::rpc
