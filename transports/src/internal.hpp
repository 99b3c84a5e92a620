#pragma once
// Shared by the transports' sources; not installed.

#include <refwire/transports/transport.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace refwire::transports::detail {

/// Throws transport_error(code, what).
[[noreturn]] void fail(errc code, const std::string& what);
/// Throws transport_error(code, "<context>: <the text of err>"); EPIPE reads "broken pipe".
[[noreturn]] void fail_errno(errc code, std::string_view context, int err);
/// The text of an errno value ("Connection refused"; EPIPE: "broken pipe").
[[nodiscard]] std::string errno_text(int err);
/// poll()'s timeout for a deadline: -1 for no_deadline, 0 once it has passed, else the
/// milliseconds left rounded up.
[[nodiscard]] int poll_timeout_ms(time_point deadline) noexcept;
/// Throws invalid_uri when an endpoint built by hand is not one parse_uri would return.
void check_endpoint(const endpoint& where);

std::unique_ptr<listener> listen_tcp(boost::asio::io_context& io, const endpoint& where,
                                     const listen_options& options);
std::unique_ptr<listener> listen_unix(boost::asio::io_context& io, const endpoint& where,
                                      const listen_options& options);
std::unique_ptr<listener> listen_inproc(boost::asio::io_context& io, const endpoint& where,
                                        const listen_options& options);
std::unique_ptr<stream> connect_tcp(boost::asio::io_context& io, const endpoint& where, time_point deadline);
std::unique_ptr<stream> connect_unix(boost::asio::io_context& io, const endpoint& where, time_point deadline);
std::unique_ptr<stream> connect_inproc(boost::asio::io_context& io, const endpoint& where);

}  // namespace refwire::transports::detail
