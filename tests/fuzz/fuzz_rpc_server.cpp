// libFuzzer target for a whole server connection: fuzzed bytes from a client.
//
// Two servers live for the whole process, each serving the test service
// (tests/rpc/test_service.hpp, with range, sleep_ms and log bounded so that no
// input can make a handler slow or the process grow) on an inproc endpoint:
// one with the default options but a short handshake timeout, and one with a
// handler pool, hooks (a counting stats sink and a logger at debug that drops the lines) and
// small limits. Per input, the first byte (fuzz_rpc_session.hpp) picks the
// server, a handshake prefix and a trailer; the target connects a raw inproc
// stream, writes prefix, fuzzed bytes and trailer in one go, then reads what
// the server answers until it closes the connection or stays quiet for a few
// milliseconds, and closes its side. What the server sends must be:
//   - whole frames whose headers parse (under the max_frame_size the handshake
//     announced), of the kinds a server sends (handshake_reply, response,
//     error, ping, pong);
//   - a handshake reply first, once, that parses, agrees to the codec and
//     compression asked for and has one entry per method listed (when the
//     prefix is the target's);
//   - error payloads that parse; nothing after an error for request id 0
//     (the server closes after it);
//   - replies (response, error with a request id) only for request ids the
//     input sent, at most one per request frame; the codec byte of a response
//     the connection's; a compressed response that opens.
//
//   fuzz_rpc_server -max_len=4096 -max_total_time=60 <scratch dir> tests/fuzz/corpus/rpc_server
#include "fuzz_rpc_session.hpp"
#include "test_service.hpp"

#include <refwire/rpc.hpp>
#include <refwire/rpc/detail/protocol.hpp>
#include <refwire/serialization/compression.hpp>
#include <refwire/transports/transport.hpp>

#include <boost/asio/io_context.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace pd = refwire::rpc::detail;
namespace rt = refwire::transports;
using namespace std::chrono_literals;

namespace {

[[noreturn]] void die(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz_rpc_server: %s %s\n", what, detail.c_str());
  std::abort();
}

/// FUZZ_RPC_VERBOSE=1 in the environment: each frame the server sends is
/// printed (for writing seeds: does this input reach the handler?).
const bool verbose = std::getenv("FUZZ_RPC_VERBOSE") != nullptr;

/// The test service with its unbounded methods bounded: range(n) returns at
/// most 16 items, sleep_ms sleeps at most 2 ms, log keeps no lines.
class bounded_calculator final : public rpctest::calculator_impl {
 public:
  std::vector<rpctest::item> range(int n) override { return calculator_impl::range(n < 0 ? n : n % 17); }
  void sleep_ms(int ms) override { calculator_impl::sleep_ms(ms < 0 ? 0 : ms % 3); }
  void log(std::string) override {}
};

/// Counts the calls it is told about (memory_stats would keep an entry per
/// method; this keeps nothing that grows).
class count_stats final : public refwire::rpc::stats_sink {
 public:
  void record(const refwire::rpc::call_record& r) noexcept override {
    calls_.fetch_add(1, std::memory_order_relaxed);
    bytes_.fetch_add(r.request_bytes + r.response_bytes, std::memory_order_relaxed);
  }

 private:
  std::atomic<std::uint64_t> calls_{0};
  std::atomic<std::uint64_t> bytes_{0};
};

/// Formats everything (debug), keeps nothing.
class drop_logger final : public refwire::rpc::logger {
 public:
  drop_logger() noexcept : logger(refwire::rpc::log_level::debug, std::chrono::microseconds(1)) {}
  void write(refwire::rpc::log_level, std::string_view message) noexcept override {
    if (message.empty()) die("the server logged an empty message");
  }
};

refwire::rpc::server_options plain_options() {
  refwire::rpc::server_options o;
  o.handshake_timeout = 2ms;
  return o;
}

refwire::rpc::server_options pooled_options() {
  refwire::rpc::server_options o;
  o.io_threads = 2;
  o.max_frame_size = 64u << 10;
  o.max_calls_in_flight = 4;
  o.handshake_timeout = 2ms;
  o.idle_timeout = 20ms;
  o.write_timeout = 50ms;
  o.drain_timeout = 20ms;
  o.handler_threads = 2;
  o.stats = std::make_shared<count_stats>();
  o.log = std::make_shared<drop_logger>();
  return o;
}

/// The two servers, started on the first input and stopped (by their
/// destructors) at exit, before the leak check.
struct servers {
  bounded_calculator calc;  // outlives the servers
  rpctest::greeter_impl greeter;
  refwire::rpc::server plain{plain_options()};
  refwire::rpc::server pooled{pooled_options()};
  std::string plain_uri;
  std::string pooled_uri;

  servers() {
    for (refwire::rpc::server* s : {&plain, &pooled}) {
      s->serve<rpctest::calculator>(calc);
      s->serve<rpctest::greeter>(greeter);
    }
    plain_uri = plain.listen("inproc://fuzz_rpc_server.plain");
    pooled_uri = pooled.listen("inproc://fuzz_rpc_server.pooled");
    plain.start();
    pooled.start();
  }
};

servers& the_servers() {
  static servers s;
  return s;
}

/// The frames of a byte stream a client wrote, as far as they parse: how many
/// request frames carry each request id.
std::map<std::uint32_t, int> requests_in(std::span<const std::byte> in) {
  std::map<std::uint32_t, int> ids;
  while (in.size() >= pd::header_size) {
    std::string why;
    const auto h = pd::parse_header(std::span<const std::byte, pd::header_size>(in.data(), pd::header_size),
                                    0xffffffffU, why);
    if (!h) break;
    if (h->kind == pd::frame_kind::request) ++ids[h->request_id];
    if (in.size() - pd::header_size < h->length) break;
    in = in.subspan(pd::header_size + h->length);
  }
  return ids;
}

/// The handshake at the front of a byte stream, if there is one that parses.
std::optional<pd::handshake> handshake_in(std::span<const std::byte> in) {
  if (in.size() < pd::header_size) return std::nullopt;
  std::string why;
  const auto h =
      pd::parse_header(std::span<const std::byte, pd::header_size>(in.data(), pd::header_size), 0xffffffffU, why);
  if (!h || h->kind != pd::frame_kind::handshake || in.size() - pd::header_size < h->length) return std::nullopt;
  pd::handshake hs;
  if (!pd::parse(in.subspan(pd::header_size, h->length), hs, why)) return std::nullopt;
  return hs;
}

/// Checks the frames the server sent, as they arrive.
class answer_checker {
 public:
  answer_checker(std::optional<pd::handshake> sent, std::map<std::uint32_t, int> requests)
      : sent_(std::move(sent)), requests_(std::move(requests)) {}

  /// Checks every whole frame of buf not checked yet (buf grows between calls).
  void feed(std::span<const std::byte> buf) {
    while (buf.size() - done_ >= pd::header_size) {
      const std::span<const std::byte> rest = buf.subspan(done_);
      if (closed_) die("the server sent a frame after an error for request id 0");
      std::string why;
      const auto h = pd::parse_header(std::span<const std::byte, pd::header_size>(rest.data(), pd::header_size),
                                      0xffffffffU, why);
      if (!h) die("the server sent a header that does not parse:", why);
      if (rest.size() - pd::header_size < h->length) return;
      check(*h, rest.subspan(pd::header_size, h->length));
      done_ += pd::header_size + h->length;
    }
  }

 private:
  void check(const pd::frame_header& h, std::span<const std::byte> payload) {
    std::string why;
    if (verbose) {
      pd::error_payload e;
      const bool error = h.kind == pd::frame_kind::error && pd::parse(payload, e, why);
      std::fprintf(stderr, "server sent %s id %u, %u bytes%s%s\n", std::string(pd::to_string(h.kind)).c_str(),
                   h.request_id, h.length, error ? ": " : "", error ? e.message.c_str() : "");
    }
    switch (h.kind) {
      case pd::frame_kind::handshake_reply: {
        if (replied_) die("the server sent a second handshake reply");
        replied_ = true;
        pd::handshake_reply r;
        if (!pd::parse(payload, r, why)) die("the server's handshake reply does not parse:", why);
        if (!sent_) die("the server sent a handshake reply to no handshake");
        if (r.codec != sent_->codec || r.compression != sent_->compression) {
          die("the server agreed to another codec or compression than asked");
        }
        if (r.methods.size() != sent_->methods.size()) {
          die("the server's handshake reply has another number of entries than the handshake has methods:",
              std::to_string(r.methods.size()) + " for " + std::to_string(sent_->methods.size()));
        }
        if (!r.extensions.empty()) die("the server accepted an extension");
        break;
      }
      case pd::frame_kind::error: {
        pd::error_payload e;
        if (!pd::parse(payload, e, why)) die("the server's error payload does not parse:", why);
        if (h.request_id == 0) {
          closed_ = true;
        } else {
          reply(h, "error");
        }
        break;
      }
      case pd::frame_kind::response: {
        reply(h, "response");
        if (h.codec != static_cast<std::uint8_t>(sent_->codec)) {
          die("a response in another codec than the handshake's:", std::to_string(h.codec));
        }
        if ((h.flags & pd::flag_compressed) != 0) {
          std::vector<std::byte> raw;
          if (refwire::error e = refwire::decompress(payload, raw)) {
            die("a compressed response does not open:", e.message());
          }
        }
        break;
      }
      case pd::frame_kind::ping:
      case pd::frame_kind::pong:
        break;
      default:
        die("the server sent a frame of kind", std::string(pd::to_string(h.kind)));
    }
  }

  /// A response or an error for a request: after the handshake reply, for a
  /// request sent and not answered yet, no longer than the client accepts.
  void reply(const pd::frame_header& h, const char* kind) {
    const std::string what = std::string(kind) + " for request id " + std::to_string(h.request_id);
    if (!replied_) die("the server sent a reply before its handshake reply:", what);
    auto it = requests_.find(h.request_id);
    if (it == requests_.end() || it->second == 0) {
      die("the server sent a reply for a request it was not sent (or a second one):", what);
    }
    --it->second;
    // An error payload takes at least 3 bytes: below that nothing fits.
    if (sent_->max_frame_size >= 3 && h.length > sent_->max_frame_size) {
      die("the server sent a reply longer than the client's max_frame_size:",
          what + ", " + std::to_string(h.length) + " bytes for " + std::to_string(sent_->max_frame_size));
    }
  }

  std::optional<pd::handshake> sent_;
  std::map<std::uint32_t, int> requests_;
  std::size_t done_ = 0;
  bool replied_ = false;
  bool closed_ = false;
};

/// How long the target waits for more of the server's answer before it closes
/// its side, and for the whole answer at most.
constexpr auto quiet = 5ms;
constexpr auto at_most = 200ms;
/// The most of the server's answer kept and checked (replies are bounded by
/// the input, compressed requests by max_frame_size).
constexpr std::size_t answer_cap = std::size_t{64} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  servers& s = the_servers();
  const std::uint8_t selector = data[0];
  const std::span<const std::byte> fuzzed(reinterpret_cast<const std::byte*>(data) + 1, size - 1);
  const bool pooled = (selector & fuzz_rpc::server_pooled) != 0;

  std::vector<std::byte> out;
  pd::handshake ours;  // the prefix (handshake_in finds it again, or the fuzzed one)
  const bool prefixed = (selector & fuzz_rpc::server_prefix_mask) != 0;
  if (prefixed) {
    const auto codec = static_cast<refwire::rpc::codec>(selector & fuzz_rpc::server_prefix_mask);
    const auto compression =
        (selector & fuzz_rpc::server_lz4) != 0 ? refwire::compression::lz4 : refwire::compression::none;
    ours = (selector & fuzz_rpc::server_changed) != 0
               ? fuzz_rpc::handshake_of<rpctest::changed::calculator>(
                     codec, compression, fuzz_rpc::server_compression_threshold, fuzz_rpc::server_client_max_frame)
               : fuzz_rpc::handshake_of<rpctest::calculator>(codec, compression,
                                                             fuzz_rpc::server_compression_threshold,
                                                             fuzz_rpc::server_client_max_frame);
    fuzz_rpc::append_handshake(out, ours);
  }
  out.insert(out.end(), fuzzed.begin(), fuzzed.end());
  if ((selector & fuzz_rpc::server_no_trailer) == 0) {
    std::array<std::byte, pd::header_size> trailer{};
    trailer[0] = std::byte{2};  // a protocol version the server does not speak
    trailer[1] = std::byte{static_cast<std::uint8_t>(pd::frame_kind::ping)};
    out.insert(out.end(), trailer.begin(), trailer.end());
  }

  answer_checker checker(handshake_in(out), requests_in(out));

  boost::asio::io_context io;  // the stream's asynchronous side is never used
  std::unique_ptr<rt::stream> c =
      rt::connect(io, rt::parse_uri(pooled ? s.pooled_uri : s.plain_uri), rt::clock::now() + 1s);
  const rt::time_point give_up = rt::clock::now() + at_most;
  std::vector<std::byte> answer;
  std::array<std::byte, 16 * 1024> buf{};
  // The server may stop reading (and close) before it has taken every byte:
  // a write that fails so is an answer, not an error. The inproc buffer holds
  // 4 MiB, more than any input, so the write does not wait for the reader.
  try {
    const std::span<const std::byte> parts[] = {out};
    c->write_all(parts, give_up);
  } catch (const rt::transport_error&) {
  }
  for (;;) {
    std::size_t n = 0;
    try {
      n = c->read_some(buf, std::min(give_up, rt::clock::now() + quiet));
    } catch (const rt::transport_error& e) {
      if (e.code() != rt::errc::timed_out) die("reading the server's answer:", e.what());
      break;  // quiet, or past at_most
    }
    if (n == 0) {  // the server closed the connection
      if (verbose) std::fprintf(stderr, "server closed\n");
      break;
    }
    answer.insert(answer.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
    checker.feed(answer);
    if (answer.size() > answer_cap) die("the server answered more than 64 MiB");
  }
  c->close();
  return 0;
}
