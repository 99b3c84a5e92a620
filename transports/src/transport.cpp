#include "internal.hpp"

#include <refwire/transports/transport.hpp>

#include <memory>

namespace refwire::transports {

std::unique_ptr<listener> listen(boost::asio::io_context& io, const endpoint& where, const listen_options& options) {
  detail::check_endpoint(where);
  switch (where.scheme) {
    case scheme::unix_socket: return detail::listen_unix(io, where, options);
    case scheme::inproc: return detail::listen_inproc(io, where, options);
    case scheme::shm: return detail::listen_shm(io, where, options);
    case scheme::tcp: break;
  }
  return detail::listen_tcp(io, where, options);
}

std::unique_ptr<stream> connect(boost::asio::io_context& io, const endpoint& where, time_point deadline) {
  detail::check_endpoint(where);
  switch (where.scheme) {
    case scheme::unix_socket: return detail::connect_unix(io, where, deadline);
    case scheme::inproc: return detail::connect_inproc(io, where);
    case scheme::shm: return detail::connect_shm(io, where, deadline);
    case scheme::tcp: break;
  }
  return detail::connect_tcp(io, where, deadline);
}

}  // namespace refwire::transports
