// libFuzzer target for a whole client connection: fuzzed bytes from a server.
//
// A fake server listens on an inproc endpoint for the whole process. Per
// input a client<rpctest::calculator> connects to it (short timeouts, no
// reconnect); the fake, on a thread of its own, accepts, reads the client's
// handshake (which must be exactly the one handshake_of builds for the
// client's options), answers with a valid handshake reply (every method ok)
// when the first byte says so (fuzz_rpc_session.hpp), then writes the fuzzed
// bytes, and then closes the connection (at once, or after reading up to 7
// more frames of the client: a stream has no half-close, and a client whose
// request cannot be sent reads nothing more) or stays silent. The client's
// frames it reads must parse. Meanwhile the client
// makes its calls (fuzz_rpc_session.hpp lists them: request ids 1 to 4, so
// seeds can answer them): a call, an async_call collected later, an
// async_call cancelled at once, a notify, a call with an out-parameter. Each
// may fail with rpc_error (remote_error included); nothing else may escape,
// a cancelled call never delivers a result, and every input ends within the
// client's timeouts.
//
//   fuzz_rpc_client -max_len=4096 -max_total_time=60 <scratch dir> tests/fuzz/corpus/rpc_client
#include "fuzz_rpc_session.hpp"
#include "test_service.hpp"

#include <refwire/rpc.hpp>
#include <refwire/rpc/detail/protocol.hpp>
#include <refwire/transports/transport.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace pd = refwire::rpc::detail;
namespace rt = refwire::transports;
using namespace std::chrono_literals;

namespace {

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz_rpc_client: %s %s\n", what, detail.c_str());
  std::abort();
}

/// FUZZ_RPC_VERBOSE=1 in the environment: how each call ended is printed
/// (for writing seeds: does this input reach a successful call?).
const bool verbose = std::getenv("FUZZ_RPC_VERBOSE") != nullptr;

/// The fake server's listener and the event loop its accepts complete on
/// (run by the fake's thread of each input, one at a time).
struct fake_endpoint {
  boost::asio::io_context io;
  std::unique_ptr<rt::listener> listener = rt::listen(io, rt::parse_uri("inproc://fuzz_rpc_client"));
};

fake_endpoint& the_endpoint() {
  static fake_endpoint e;
  return e;
}

refwire::rpc::client_options options_for(std::uint8_t selector) {
  refwire::rpc::client_options o;
  o.timeout = 10ms;
  o.connect_timeout = 20ms;
  o.reconnect = false;  // one connection per input: nothing is left queued on the fake's listener
  o.max_frame_size = 64u << 10;
  o.max_calls_in_flight = 8;
  if ((selector & fuzz_rpc::client_lz4) != 0) {
    o.compression = refwire::compression::lz4;
    o.compression_threshold = fuzz_rpc::client_compression_threshold;
  }
  if ((selector & fuzz_rpc::client_ping) != 0) {
    o.ping_interval = 2ms;
    o.ping_timeout = 5ms;
  }
  return o;
}

/// Reads one whole frame (header and payload) the client sent before the
/// deadline; nullopt when the stream ends first. A header that does not
/// parse, or of a kind a client does not send, is a failure of the client.
std::optional<std::vector<std::byte>> read_frame(rt::stream& s, rt::time_point deadline) {
  std::vector<std::byte> frame;
  std::size_t want = pd::header_size;
  std::array<std::byte, 4096> buf{};
  while (frame.size() < want) {
    const std::size_t n = s.read_some(std::span<std::byte>(buf.data(), std::min(buf.size(), want - frame.size())),
                                      deadline);
    if (n == 0) return std::nullopt;
    frame.insert(frame.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
    if (frame.size() == pd::header_size) {
      std::string why;
      const auto h = pd::parse_header(std::span<const std::byte, pd::header_size>(frame.data(), pd::header_size),
                                      fuzz_rpc::client_fake_max_frame, why);
      if (!h) die("the client sent a header that does not parse:", why);
      switch (h->kind) {
        case pd::frame_kind::handshake_reply:
        case pd::frame_kind::response:
          die("the client sent a frame of kind", std::string(pd::to_string(h->kind)));
        default:
          break;
      }
      want += h->length;
    }
  }
  return frame;
}

/// The fake server's side of one input: accept, read the handshake, answer;
/// then close at once, or after reading more of the client's frames, or
/// stay silent. Leaves the accepted stream in `accepted` for the caller to
/// destroy after the client is gone.
void fake_server(std::uint8_t selector, std::span<const std::byte> fuzzed, const pd::handshake& expected,
                 std::unique_ptr<rt::stream>& accepted) {
  fake_endpoint& e = the_endpoint();
  e.listener->async_accept([&](rt::errc c, std::unique_ptr<rt::stream> s) {
    if (c == rt::errc::ok) accepted = std::move(s);
  });
  {
    auto work = boost::asio::make_work_guard(e.io);
    e.io.restart();
    // The client connects at once (inproc), so the accept completes at once.
    e.io.run_one_for(std::chrono::milliseconds(500));
  }
  if (!accepted) die("the client did not connect within 500 ms");
  rt::stream& s = *accepted;
  const bool close = (selector & fuzz_rpc::client_close) != 0;
  try {
    const rt::time_point deadline = rt::clock::now() + 500ms;
    const std::optional<std::vector<std::byte>> frame = read_frame(s, deadline);
    if (!frame) die("the client closed the connection before its handshake was whole");
    std::vector<std::byte> want;
    fuzz_rpc::append_handshake(want, expected);
    if (*frame != want) die("the client's handshake is not the one handshake_of builds for its options");
    std::vector<std::byte> out;
    if ((selector & fuzz_rpc::client_reply) != 0) fuzz_rpc::append_reply_ok(out, expected, fuzz_rpc::client_fake_max_frame);
    out.insert(out.end(), fuzzed.begin(), fuzzed.end());
    const std::span<const std::byte> parts[] = {out};
    s.write_all(parts, deadline);
    if (close) {
      const unsigned frames = (selector & fuzz_rpc::client_close_after_mask) >> fuzz_rpc::client_close_after_shift;
      for (unsigned i = 0; i < frames && read_frame(s, deadline); ++i) {
      }
    }
  } catch (const rt::transport_error& err) {
    // The client gave up first (it closed on a malformed reply or a timeout).
    if (err.code() != rt::errc::io_error && err.code() != rt::errc::closed && err.code() != rt::errc::timed_out) {
      die("the fake server's side:", err.what());
    }
  }
  if (close) s.close();
}

template <class F>
void may_fail(const char* what, F&& f) {
  try {
    f();
    if (verbose) std::fprintf(stderr, "%s: ok\n", what);
  } catch (const refwire::rpc::rpc_error& e) {
    if (verbose) std::fprintf(stderr, "%s: %s: %s\n", what, std::string(to_string(e.code())).c_str(), e.what());
    if (e.code() == refwire::rpc::status_code::ok) die("an rpc_error with status ok:", e.what());
  }
}

void make_calls(refwire::rpc::client<rpctest::calculator>& c) {
  using calc = rpctest::calculator;
  may_fail("add", [&] { static_cast<void>(c.call<&calc::add>(2, 3)); });
  // A pending keeps pointers to the call's arguments until get(): they live here.
  const std::string word = "fuzz";
  const int three = 3;
  std::optional<refwire::rpc::pending<std::string>> echo;
  may_fail("async_call echo", [&] { echo = c.async_call<&calc::echo>(word); });
  may_fail("range, cancelled", [&] {
    auto range = c.async_call<&calc::range>(three);
    range.cancel();
    try {
      static_cast<void>(range.get());
    } catch (const refwire::rpc::rpc_error& e) {
      if (e.code() == refwire::rpc::status_code::ok) die("an rpc_error with status ok:", e.what());
      throw;
    }
    die("a cancelled call delivered a result");
  });
  may_fail("notify log", [&] { c.notify<&calc::log>(word); });
  if (echo) may_fail("echo get", [&] { static_cast<void>(echo->get()); });
  may_fail("total", [&] {
    const std::vector<rpctest::item> items{{1, "a", 2.5}};
    rpctest::summary out;
    static_cast<void>(c.call<&calc::total>(items, out));
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  the_endpoint();
  const std::uint8_t selector = data[0];
  const std::span<const std::byte> fuzzed(reinterpret_cast<const std::byte*>(data) + 1, size - 1);
  const refwire::rpc::client_options options = options_for(selector);
  const pd::handshake expected = fuzz_rpc::handshake_of<rpctest::calculator>(
      options.codec, options.compression, options.compression_threshold, options.max_frame_size);

  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<rt::stream> accepted;
  std::thread fake([&] { fake_server(selector, fuzzed, expected, accepted); });
  {
    std::optional<refwire::rpc::client<rpctest::calculator>> c;
    may_fail("connect", [&] { c.emplace("inproc://fuzz_rpc_client", options); });
    if (c) make_calls(*c);
  }
  fake.join();
  accepted.reset();
  // Four calls of at most 10 ms each and a 20 ms handshake: far less than this
  // unless a timeout is not kept.
  const auto took = std::chrono::steady_clock::now() - start;
  if (took > 2s) {
    die("an input took",
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()) + " ms");
  }
  return 0;
}
