#include "internal.hpp"

#include <refwire/transports/transport.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace refwire::transports {
namespace {

constexpr std::size_t max_quoted = 200;  // longer URIs are cut in messages

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

/// Text from the URI as a message shows it: control bytes as \xNN, cut after max_quoted bytes.
std::string quoted(std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string s;
  for (char c : text.substr(0, max_quoted)) {
    if (is_control(c)) {
      const auto u = static_cast<unsigned char>(c);
      s += "\\x";
      s += hex[u >> 4];
      s += hex[u & 0xf];
    } else {
      s += c;
    }
  }
  if (text.size() > max_quoted) s += "...";
  return s;
}

[[noreturn]] void invalid(std::string_view uri, std::string_view what) {
  std::string m = uri.empty() ? std::string("empty URI") : quoted(uri);
  m += ": ";
  m += what;
  detail::fail(errc::invalid_uri, m);
}

bool has_control(std::string_view s) {
  for (char c : s) {
    if (is_control(c)) return true;
  }
  return false;
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_';
}

std::uint16_t parse_port(std::string_view uri, std::string_view text) {
  if (text.empty()) invalid(uri, "missing port (write tcp://host:port)");
  std::uint32_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      invalid(uri, "port \"" + quoted(text) + "\" is not a number (write tcp://host:port, port 0..65535)");
    }
    value = value * 10 + static_cast<std::uint32_t>(c - '0');
    if (value > 65535) invalid(uri, "port " + quoted(text) + " out of range (0..65535)");
  }
  return static_cast<std::uint16_t>(value);
}

endpoint parse_tcp(std::string_view uri, std::string_view rest) {
  endpoint e;
  e.scheme = scheme::tcp;
  std::string_view port;
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string_view::npos) invalid(uri, "unclosed '[' in the host (write tcp://[::1]:port)");
    const std::string_view host = rest.substr(1, close - 1);
    if (host.empty()) invalid(uri, "empty host (write tcp://host:port)");
    std::string h(host);
    in6_addr addr{};
    if (::inet_pton(AF_INET6, h.c_str(), &addr) != 1) {
      invalid(uri, "\"" + h + "\" is not an IPv6 address (only IPv6 addresses go in brackets)");
    }
    e.host = std::move(h);
    const std::string_view after = rest.substr(close + 1);
    if (after.empty()) invalid(uri, "missing port (write tcp://host:port)");
    if (after.front() != ':') invalid(uri, "expected ':' and the port after ']'");
    port = after.substr(1);
  } else {
    const auto colon = rest.find(':');
    if (colon == std::string_view::npos) {
      if (rest.empty()) invalid(uri, "empty host (write tcp://host:port)");
      invalid(uri, "missing port (write tcp://host:port)");
    }
    if (rest.find(':', colon + 1) != std::string_view::npos) {
      invalid(uri, "an IPv6 address must be in brackets (write tcp://[::1]:port)");
    }
    const std::string_view host = rest.substr(0, colon);
    if (host.empty()) invalid(uri, "empty host (write tcp://host:port)");
    for (char c : host) {
      if (!is_name_char(c)) {
        invalid(uri, "invalid character in the host \"" + quoted(host) +
                         "\" (a name, an IPv4 address, or an IPv6 address in brackets)");
      }
    }
    e.host = std::string(host);
    port = rest.substr(colon + 1);
  }
  e.port = parse_port(uri, port);
  return e;
}

endpoint parse_shm(std::string_view uri, std::string_view rest) {
  constexpr std::size_t max_name = 100;
  const auto query = rest.find('?');
  const std::string_view name = rest.substr(0, query);
  if (name.empty()) invalid(uri, "missing name (write shm://name)");
  for (char c : name) {
    if (!is_name_char(c)) {
      invalid(uri, "invalid character in the shm name \"" + quoted(name) + "\" (letters, digits, '.', '_' and '-')");
    }
  }
  if (name == "." || name == "..") invalid(uri, "the shm name cannot be \".\" or \"..\"");
  if (name.size() > max_name) {
    invalid(uri, "the shm name is " + std::to_string(name.size()) + " bytes long, at most " +
                     std::to_string(max_name) + " fit");
  }
  endpoint e;
  e.scheme = scheme::shm;
  e.path = std::string(name);
  if (query == std::string_view::npos) return e;
  const std::string_view option = rest.substr(query + 1);
  constexpr std::string_view key = "ring_size=";
  if (option.substr(0, key.size()) != key) {
    invalid(uri, "unknown option \"" + quoted(option.substr(0, option.find('='))) +
                     "\" (the one option is ?ring_size=bytes)");
  }
  const std::string_view digits = option.substr(key.size());
  if (digits.empty()) invalid(uri, "missing ring size (write shm://name?ring_size=bytes)");
  std::size_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') invalid(uri, "ring size \"" + quoted(digits) + "\" is not a number");
    value = value * 10 + static_cast<std::size_t>(c - '0');
    if (value > shm_max_ring_size) {
      invalid(uri, "ring size " + quoted(digits) + " out of range (" + std::to_string(shm_min_ring_size) + ".." +
                       std::to_string(shm_max_ring_size) + ")");
    }
  }
  if (value < shm_min_ring_size) {
    invalid(uri, "ring size " + quoted(digits) + " out of range (" + std::to_string(shm_min_ring_size) + ".." +
                     std::to_string(shm_max_ring_size) + ")");
  }
  if ((value & (value - 1)) != 0) invalid(uri, "ring size " + quoted(digits) + " is not a power of two");
  e.ring_size = value;
  return e;
}

}  // namespace

endpoint parse_uri(std::string_view uri) {
  const auto sep = uri.find("://");
  if (sep == std::string_view::npos || sep == 0) {
    invalid(uri, "missing scheme (write unix:///path, tcp://host:port, inproc://name or shm://name)");
  }
  const std::string_view name = uri.substr(0, sep);
  const std::string_view rest = uri.substr(sep + 3);
  if (name == "tcp") return parse_tcp(uri, rest);
  if (name == "unix") {
    if (rest.empty()) invalid(uri, "missing path (write unix:///path)");
    if (rest.front() != '/') invalid(uri, "the unix path must be absolute (write unix:///path)");
    if (rest.find('\0') != std::string_view::npos) invalid(uri, "the unix path contains a NUL byte");
    endpoint e;
    e.scheme = scheme::unix_socket;
    e.path = std::string(rest);
    return e;
  }
  if (name == "inproc") {
    if (rest.empty()) invalid(uri, "missing name (write inproc://name)");
    if (has_control(rest)) invalid(uri, "the inproc name contains a control character");
    endpoint e;
    e.scheme = scheme::inproc;
    e.path = std::string(rest);
    return e;
  }
  if (name == "shm") return parse_shm(uri, rest);
  invalid(uri, "unknown scheme \"" + quoted(name) + "\" (expected unix, tcp, inproc or shm)");
}

std::string endpoint::uri() const {
  switch (scheme) {
    case transports::scheme::unix_socket: return "unix://" + path;
    case transports::scheme::inproc: return "inproc://" + path;
    case transports::scheme::shm:
      return ring_size == 0 ? "shm://" + path : "shm://" + path + "?ring_size=" + std::to_string(ring_size);
    case transports::scheme::tcp: break;
  }
  std::string s = "tcp://";
  if (host.find(':') != std::string::npos) {
    s += '[';
    s += host;
    s += ']';
  } else {
    s += host;
  }
  s += ':';
  s += std::to_string(port);
  return s;
}

namespace detail {

void check_endpoint(const endpoint& where) {
  // An endpoint built by hand goes through the parser's checks again.
  const std::string text = where.uri();
  const endpoint parsed = parse_uri(text);
  if (parsed.scheme != where.scheme || parsed.host != where.host || parsed.port != where.port ||
      parsed.path != where.path || parsed.ring_size != where.ring_size) {
    fail(errc::invalid_uri, quoted(text) + ": the endpoint does not round-trip through its URI");
  }
}

}  // namespace detail
}  // namespace refwire::transports
