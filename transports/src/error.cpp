#include "internal.hpp"

#include <refwire/transports/transport.hpp>

#include <cerrno>
#include <chrono>
#include <climits>
#include <string>
#include <system_error>

namespace refwire::transports {

std::string_view to_string(errc c) noexcept {
  switch (c) {
    case errc::ok: return "ok";
    case errc::invalid_uri: return "invalid_uri";
    case errc::address_in_use: return "address_in_use";
    case errc::connection_refused: return "connection_refused";
    case errc::not_found: return "not_found";
    case errc::timed_out: return "timed_out";
    case errc::closed: return "closed";
    case errc::io_error: return "io_error";
  }
  return "unknown";
}

transport_error::transport_error(errc code, const std::string& what) : std::runtime_error(what), code_(code) {}

namespace detail {

void fail(errc code, const std::string& what) { throw transport_error(code, what); }

std::string errno_text(int err) {
  if (err == EPIPE) return "broken pipe";
  return std::system_category().message(err);
}

void fail_errno(errc code, std::string_view context, int err) {
  std::string what(context);
  what += ": ";
  what += errno_text(err);
  throw transport_error(code, what);
}

int poll_timeout_ms(time_point deadline) noexcept {
  if (deadline == no_deadline) return -1;
  const auto now = clock::now();
  if (now >= deadline) return 0;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
  return left > INT_MAX ? INT_MAX : static_cast<int>(left);
}

}  // namespace detail
}  // namespace refwire::transports
