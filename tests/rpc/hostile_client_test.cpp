// The client against hostile servers (a scripted fake_server), over every
// transport. Each case: the right error for the call, the client's next call
// reconnects when the connection broke and works against a well-behaved
// server, and nothing leaks (descriptors, the client's ping thread).

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <refwire/rpc.hpp>
#include <refwire/serialization.hpp>

#include "fake_server.hpp"
#include "rpc_support.hpp"
#include "test_service.hpp"

namespace {

using namespace std::chrono_literals;
using refwire::rpc::client;
using refwire::rpc::status_code;
using refwire::rpc::detail::frame_header;
using refwire::rpc::detail::frame_kind;
using rpctest::calculator;
using rpctest::expect_rpc_error;
using rpctest::fake_peer;
using rpctest::fake_server;
using rpctest::seen_frame;
using rpctest::transport;

class bad_server : public testing::TestWithParam<transport> {
 protected:
  /// Runs body against a fake server whose first connection runs `first`
  /// (it gets each request the client sends) and whose later ones serve
  /// well; then checks for leaks. The client owns a ping thread (that never
  /// pings within a test) so that its threads are counted too.
  template <class First, class Body>
  void run(First first, Body body, refwire::rpc::client_options options = {}) {
    rpctest::leak_check leaks;
    {
      rpctest::temp_dir dir;
      fake_server fake(GetParam(), dir, [&](fake_peer& p, int n) {
        if (n > 0) return p.serve_calculator();
        first(p);
      });
      options.ping_interval = 10s;
      {
        client<calculator> calc(fake.uri(), options);
        body(calc, fake);
      }
    }
    leaks.check();
  }
};

INSTANTIATE_TEST_SUITE_P(every_transport, bad_server,
                         testing::Values(transport::inproc, transport::unix_socket, transport::tcp, transport::shm),
                         [](const testing::TestParamInfo<transport>& p) { return rpctest::to_string(p.param); });

/// A first connection that handshakes, then answers each request with `reply`.
template <class Reply>
auto on_each_request(Reply reply) {
  return [reply](fake_peer& p) {
    p.answer_handshake();
    p.serve([&](fake_peer& peer, const seen_frame& f) {
      if (f.header.kind == frame_kind::request) reply(peer, f);
    });
  };
}

std::vector<std::byte> bytes(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

TEST_P(bad_server, garbage_after_the_handshake_breaks_the_connection_and_the_next_call_reconnects) {
  run(on_each_request([](fake_peer& p, const seen_frame&) {
        p.send_bytes(bytes({0x07, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
                            0x0f}));
      }),
      [](client<calculator>& calc, fake_server& fake) {
        expect_rpc_error([&] { (void)calc.call<&calculator::add>(1, 2); }, status_code::unavailable,
                         "calc.v1.add: the server sent a bad frame: protocol version 7 is not supported (this side "
                         "speaks version 1)");
        EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
        EXPECT_EQ(fake.connections(), 2);
      });
}

TEST_P(bad_server, a_response_for_an_id_never_sent_is_dropped) {
  run(on_each_request([](fake_peer& p, const seen_frame& f) {
        seen_frame stray = f;
        stray.header.request_id = f.header.request_id + 1000;
        p.answer_calculator(stray);
        stray.header.request_id = 0;  // a response (not an error) for id 0: dropped too
        p.answer_calculator(stray);
        p.answer_calculator(f);
      }),
      [](client<calculator>& calc, fake_server& fake) {
        EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
        auto f = calc.async_call<&calculator::add>(3, 4);
        EXPECT_EQ(f.get(), 7);
        EXPECT_EQ(calc.call<&calculator::add>(5, 6), 11);
        EXPECT_EQ(fake.connections(), 1);
      });
}

TEST_P(bad_server, a_reply_of_the_wrong_type_is_internal_and_the_connection_stays) {
  run(on_each_request([](fake_peer& p, const seen_frame& f) {
        const auto [a, b] = refwire::deserialize<std::tuple<int, int>>(fake_peer::arguments(f));
        if (a == 0) {
          p.respond(f, bytes({0x01, 0x02}));  // two bytes where an i32 is expected
        } else {
          p.respond(f, refwire::serialize(std::tuple<int>{a + b}));
        }
      }),
      [](client<calculator>& calc, fake_server& fake) {
        expect_rpc_error([&] { (void)calc.call<&calculator::add>(0, 2); }, status_code::internal,
                         "calc.v1.add: the reply does not decode: ");
        auto f = calc.async_call<&calculator::add>(0, 1);
        expect_rpc_error([&] { (void)f.get(); }, status_code::internal, "calc.v1.add: the reply does not decode: ");
        EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
        EXPECT_EQ(fake.connections(), 1);
      });
}

TEST_P(bad_server, an_oversize_length_is_refused_before_anything_is_allocated) {
  run(on_each_request([](fake_peer& p, const seen_frame& f) {
        frame_header h;
        h.kind = frame_kind::response;
        h.codec = 1;
        h.request_id = f.header.request_id;
        h.length = 1u << 30;
        p.send_frame(h, {}, true);
      }),
      [](client<calculator>& calc, fake_server& fake) {
        expect_rpc_error([&] { (void)calc.call<&calculator::add>(1, 2); }, status_code::unavailable,
                         "calc.v1.add: the server sent a bad frame: frame of 1073741824 bytes is longer than "
                         "max_frame_size (4096)");
        EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
        EXPECT_EQ(fake.connections(), 2);
      },
      {.max_frame_size = 4096});
}

TEST_P(bad_server, a_handshake_reply_with_a_wrong_method_count_fails_the_constructor) {
  rpctest::leak_check leaks;
  {
    rpctest::temp_dir dir;
    fake_server fake(GetParam(), dir, [](fake_peer& p, int n) {
      if (n > 0) return p.serve_calculator();
      p.answer_handshake([](refwire::rpc::detail::handshake_reply& r) { r.methods.resize(1); });
      (void)p.read_frame(2s);  // until the client closes
    });
    expect_rpc_error([&] { client<calculator> calc(fake.uri(), {.ping_interval = 10s}); }, status_code::unavailable,
                     fake.uri() + ": the handshake reply has 1 method entries for 9 methods");
    client<calculator> calc(fake.uri(), {.ping_interval = 10s});
    EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
  }
  leaks.check();
}

TEST_P(bad_server, a_method_marked_unknown_or_mismatched_is_unimplemented_and_others_work) {
  rpctest::leak_check leaks;
  {
    rpctest::temp_dir dir;
    fake_server fake(GetParam(), dir, [](fake_peer& p, int) {
      p.answer_handshake([](refwire::rpc::detail::handshake_reply& r) {
        r.methods[0].state = refwire::rpc::detail::method_state::unknown;  // add
        r.methods[3].state = refwire::rpc::detail::method_state::mismatch;  // echo
        r.methods[3].server_signature = "(i64)->i64";
      });
      p.serve();
    });
    client<calculator> calc(fake.uri(), {.ping_interval = 10s});
    expect_rpc_error([&] { (void)calc.call<&calculator::add>(1, 2); }, status_code::unimplemented,
                     "calc.v1.add is not served at " + fake.uri());
    expect_rpc_error([&] { (void)calc.call<&calculator::echo>(std::string("x")); }, status_code::unimplemented,
                     "calc.v1.echo: the server at " + fake.uri() +
                         " has another signature: client (string)->string, server (i64)->i64 (with the binary codec "
                         "both sides must be built from the same interface)");
    EXPECT_EQ(calc.call<&calculator::divide>(9, 3), 3);
    EXPECT_EQ(fake.connections(), 1);
  }
  leaks.check();
}

TEST_P(bad_server, silence_after_the_handshake_is_deadline_exceeded_at_the_deadline) {
  run(on_each_request([](fake_peer& p, const seen_frame& f) {
        const auto [a, b] = refwire::deserialize<std::tuple<int, int>>(fake_peer::arguments(f));
        if (a != 0) p.answer_calculator(f);  // add(0, x) is never answered
        (void)b;
      }),
      [](client<calculator>& calc, fake_server& fake) {
        const auto start = std::chrono::steady_clock::now();
        expect_rpc_error([&] { (void)calc.call<&calculator::add>({.timeout = 150ms}, 0, 1); },
                         status_code::deadline_exceeded, "calc.v1.add: no reply before the deadline");
        const auto took = std::chrono::steady_clock::now() - start;
        EXPECT_GE(took, 150ms);
        EXPECT_LT(took, 650ms);
        auto f = calc.async_call<&calculator::add>({.timeout = 100ms}, 0, 2);
        expect_rpc_error([&] { (void)f.get(); }, status_code::deadline_exceeded,
                         "calc.v1.add: no reply before the deadline");
        EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);  // the connection stays
        EXPECT_EQ(fake.connections(), 1);
      });
}

TEST_P(bad_server, an_error_frame_with_request_id_0_fails_the_calls_and_the_next_call_reconnects) {
  run(on_each_request([](fake_peer& p, const seen_frame&) {
        p.send_error(0, 0, status_code::resource_exhausted, "going away");
      }),
      [](client<calculator>& calc, fake_server& fake) {
        expect_rpc_error([&] { (void)calc.call<&calculator::add>(1, 2); }, status_code::unavailable,
                         "calc.v1.add: the server closed the connection: going away");
        EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
        EXPECT_EQ(fake.connections(), 2);
      });
}

TEST_P(bad_server, a_truncated_frame_then_close_fails_the_call_and_the_next_call_reconnects) {
  run(
      [](fake_peer& p) {
        p.answer_handshake();
        auto f = p.read_frame();
        ASSERT_TRUE(f);
        p.send_bytes(bytes({0x01, 0x04, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00}));  // 10 of a header's 16
        p.close();
      },
      [](client<calculator>& calc, fake_server& fake) {
        expect_rpc_error([&] { (void)calc.call<&calculator::add>(1, 2); }, status_code::unavailable,
                         "calc.v1.add: the server closed the connection in the middle of a frame");
        EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
        EXPECT_EQ(fake.connections(), 2);
      });
}

}  // namespace
