// A user's program linking refwire::rpc alone: the compiled rpc library and
// its headers (under -Wall -Wextra -Werror) come with the package.
#include <refwire/rpc/detail/protocol.hpp>
#include <refwire/rpc/error.hpp>
#include <refwire/rpc/options.hpp>
#include <refwire/rpc/status.hpp>

#include <cstdio>
#include <string>
#include <vector>

int main() {
  const refwire::rpc::client_options options{.codec = refwire::rpc::codec::json};
  if (refwire::rpc::to_string(options.codec) != "json" ||
      refwire::rpc::to_string(refwire::rpc::status_code::unavailable) != "unavailable") {
    std::fprintf(stderr, "rpc names differ\n");
    return 1;
  }
  const refwire::rpc::detail::error_payload sent{refwire::rpc::status_code::internal, "std::runtime_error", "boom"};
  std::vector<std::byte> bytes;
  refwire::rpc::detail::encode(sent, bytes);
  refwire::rpc::detail::error_payload got;
  std::string why;
  if (!refwire::rpc::detail::parse(bytes, got, why) || got.message != sent.message) {
    std::fprintf(stderr, "rpc error payload round trip failed: %s\n", why.c_str());
    return 1;
  }
  const refwire::rpc::remote_error e(got.code, got.type, got.message);
  std::printf("rpc ok: %s %s: %s\n", std::string(refwire::rpc::to_string(e.code())).c_str(), e.type().c_str(), e.what());
  return 0;
}
