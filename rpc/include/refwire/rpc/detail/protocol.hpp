#pragma once
// The RPC wire protocol (docs/rpc-protocol.md): frame headers, handshake,
// handshake reply and error payloads. Pure functions over bytes: no sockets,
// no formats. Every parser takes untrusted input and never reads out of
// bounds, never allocates more than its input justifies, and returns a
// message saying what is wrong.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <refwire/rpc/status.hpp>
#include <refwire/serialization/options.hpp>  // refwire::compression

namespace refwire::rpc::detail {

inline constexpr std::uint8_t protocol_version = 1;
inline constexpr std::size_t header_size = 16;

enum class frame_kind : std::uint8_t {
  handshake = 1,        ///< client -> server, first frame
  handshake_reply = 2,  ///< server -> client
  request = 3,          ///< client -> server: arguments; a response or error follows
  response = 4,         ///< server -> client: result and out-parameters
  error = 5,            ///< either way: status, type, message (request id 0: about the connection, which then closes)
  one_way = 6,          ///< client -> server: notify, no reply
  cancel = 7,           ///< client -> server: the request with this id is no longer wanted
  ping = 8,             ///< either way; answered by pong with the same request id
  pong = 9,
};

/// "handshake", "request", ... ("unknown" otherwise).
[[nodiscard]] std::string_view to_string(frame_kind k) noexcept;

/// Frame flags (byte 2 of the header); every other bit must be 0.
inline constexpr std::uint8_t flag_compressed = 0x01;  ///< the payload is an lz4 envelope (refwire::compress)
/// Requests only: the payload starts with a u32le, the caller's timeout in
/// milliseconds (counted by the server from when it reads the frame); the
/// arguments (compressed or not) follow it.
inline constexpr std::uint8_t flag_deadline = 0x02;
inline constexpr std::uint8_t known_flags = flag_compressed | flag_deadline;
/// The length of the deadline prefix of a request with flag_deadline.
inline constexpr std::size_t deadline_prefix_size = 4;

/// The fixed 16-byte header, little-endian:
///   0 u8 version | 1 u8 kind | 2 u8 flags | 3 u8 codec (format id, 0 when the payload is not codec bytes)
///   4 u32 payload length | 8 u32 request id | 12 u32 method id
struct frame_header {
  std::uint8_t version = protocol_version;
  frame_kind kind = frame_kind::request;
  std::uint8_t flags = 0;
  std::uint8_t codec = 0;
  std::uint32_t length = 0;
  std::uint32_t request_id = 0;
  std::uint32_t method_id = 0;
};

void write_header(const frame_header& h, std::span<std::byte, header_size> out) noexcept;

/// Parses and checks a header: known version and kind, no unknown flag bits,
/// length <= max_payload; also flag_compressed only on request, response and
/// one_way, flag_deadline only on request (with a length of at least
/// deadline_prefix_size), and no payload on cancel, ping and pong. On failure returns nullopt and sets why, e.g.
/// "frame of 33554432 bytes is longer than max_frame_size (16777216)",
/// "unknown frame kind 42", "protocol version 2 is not supported (this side speaks version 1)".
[[nodiscard]] std::optional<frame_header> parse_header(std::span<const std::byte, header_size> in,
                                                       std::uint32_t max_payload, std::string& why);

/// One entry of a handshake's method table.
struct method_entry {
  std::uint32_t id = 0;
  std::string name;       ///< "calc.v1.add" (interface name, '.', method name; just "add" when unnamed)
  std::string signature;  ///< canonical, e.g. "(i32,i32)->i32"
  std::string shape;      ///< the same with every struct body collapsed ("({},&{})->i32"): what evolvable codecs compare
};

/// A typed extension (auth, TLS details later): type, then opaque bytes.
/// A receiver refuses any type it does not know.
struct extension {
  std::uint32_t type = 0;
  std::vector<std::byte> data;
};

/// Client -> server (frame_kind::handshake payload).
struct handshake {
  std::uint32_t version = protocol_version;
  rpc::codec codec = rpc::codec::binary;
  refwire::compression compression = refwire::compression::none;
  std::uint32_t compression_threshold = 0;  ///< payloads at least this long are compressed (both ways)
  std::uint32_t max_frame_size = 0;         ///< the longest payload this side accepts
  std::string interface_name;               ///< REFWIRE_NAME of the interface ("" when unnamed)
  std::vector<method_entry> methods;
  std::vector<extension> extensions;
};

/// What the server knows of one client method, in the client's table order.
enum class method_state : std::uint8_t {
  ok = 0,
  unknown = 1,       ///< the server does not serve this method id
  mismatch = 2,      ///< served, with another signature (server_signature says which)
};

struct method_reply {
  detail::method_state state = method_state::ok;
  std::string server_signature;  ///< mismatch only
};

/// Server -> client (frame_kind::handshake_reply payload).
struct handshake_reply {
  rpc::codec codec = rpc::codec::binary;
  refwire::compression compression = refwire::compression::none;
  std::uint32_t max_frame_size = 0;
  std::vector<method_reply> methods;  ///< one per handshake::methods entry, same order
  std::vector<extension> extensions;  ///< the extensions the server accepted
};

/// frame_kind::error payload.
struct error_payload {
  status_code code = status_code::internal;
  std::string type;     ///< a handler exception's type name ("" when not from a handler)
  std::string message;
};

// Encoders append to out (strings that are not valid UTF-8 are written with
// U+FFFD for each bad byte, so that what is sent always parses). Parsers
// return false and set why on malformed input, leaving the output untouched
// (truncated, bad varint, trailing bytes, counts larger than the input can hold,
// invalid UTF-8, unknown codec/compression/status/method-state numbers, status
// ok in an error payload; unknown extension types are NOT refused here: the
// caller decides).
void encode(const handshake& h, std::vector<std::byte>& out);
void encode(const handshake_reply& r, std::vector<std::byte>& out);
void encode(const error_payload& e, std::vector<std::byte>& out);
[[nodiscard]] bool parse(std::span<const std::byte> in, handshake& h, std::string& why);
[[nodiscard]] bool parse(std::span<const std::byte> in, handshake_reply& r, std::string& why);
[[nodiscard]] bool parse(std::span<const std::byte> in, error_payload& e, std::string& why);

}  // namespace refwire::rpc::detail
