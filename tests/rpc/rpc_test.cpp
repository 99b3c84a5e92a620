// RPC end to end in one process: a server and clients over every transport
// (inproc, unix, tcp) and every codec. The process tests (rpc_process_test)
// do the same across processes.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <refwire/rpc.hpp>

#include "rpc_support.hpp"
#include "test_service.hpp"

namespace {

using namespace std::chrono_literals;
using refwire::rpc::client;
using refwire::rpc::codec;
using refwire::rpc::rpc_error;
using refwire::rpc::remote_error;
using refwire::rpc::status_code;
using rpctest::calculator;
using rpctest::expect_rpc_error;
using rpctest::transport;

/// A running server of calculator (and greeter) on one endpoint.
struct served {
  explicit served(transport t, refwire::rpc::endpoint_options eo = {}, refwire::rpc::server_options so = {})
      : server(so) {
    server.serve<calculator>(impl);
    server.serve<rpctest::greeter>(greeter);
    uri = server.listen(rpctest::listen_uri(t, dir), eo);
    server.start();
  }
  rpctest::temp_dir dir;
  rpctest::calculator_impl impl;
  rpctest::greeter_impl greeter;
  refwire::rpc::server server;
  std::string uri;
};

struct combo {
  transport t;
  codec c;
};

std::string name_of(const testing::TestParamInfo<combo>& p) {
  return rpctest::to_string(p.param.t) + "_" + std::string(refwire::rpc::to_string(p.param.c));
}

class rpc_calls : public testing::TestWithParam<combo> {};

std::vector<combo> every_combo() {
  std::vector<combo> out;
  for (transport t : {transport::inproc, transport::unix_socket, transport::tcp, transport::shm}) {
    for (codec c : {codec::binary, codec::json, codec::protobuf}) out.push_back({t, c});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(every_transport_and_codec, rpc_calls, testing::ValuesIn(every_combo()), name_of);

TEST_P(rpc_calls, results_out_parameters_void_and_strings) {
  served s(GetParam().t);
  client<calculator> calc(s.uri, {.codec = GetParam().c});
  EXPECT_EQ(calc.call<&calculator::add>(2, 3), 5);
  EXPECT_EQ(calc.call<&calculator::add>(-7, 3), -4);
  const std::vector<rpctest::item> r = calc.call<&calculator::range>(50);
  ASSERT_EQ(r.size(), 50u);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(r[static_cast<std::size_t>(i)], (rpctest::item{i, "item-" + std::to_string(i) + "-name", i * 1.5}));
  }
  EXPECT_EQ(calc.call<&calculator::echo>(std::string("Hello World!")), "Hello World!");
  EXPECT_EQ(calc.call<&calculator::echo>(std::string()), "");

  rpctest::summary out{99, 99, "before"};
  const std::vector<rpctest::item> items = {{1, "a", 2.5}, {2, "b", 4.0}};
  EXPECT_EQ(calc.call<&calculator::total>(items, out), 2);
  EXPECT_EQ(out, (rpctest::summary{6.5, 2, "ok"}));

  calc.call<&calculator::log>(std::string("one"));  // void: waits for the reply
  EXPECT_EQ(s.impl.lines(), std::vector<std::string>{"one"});
  EXPECT_EQ(calc.call<&calculator::logged>(), 1u);
}

TEST_P(rpc_calls, handler_exceptions_reach_the_caller_and_the_connection_stays) {
  served s(GetParam().t);
  client<calculator> calc(s.uri, {.codec = GetParam().c});
  try {
    (void)calc.call<&calculator::divide>(1, 0);
    ADD_FAILURE() << "no remote_error";
  } catch (const remote_error& e) {
    EXPECT_EQ(e.code(), status_code::internal);
    EXPECT_EQ(e.type(), "std::domain_error");
    EXPECT_STREQ(e.what(), "calc.v1.divide: divide: division by zero");
  }
  EXPECT_EQ(calc.call<&calculator::divide>(9, 3), 3);
  try {
    calc.call<&calculator::fail_with>(static_cast<int>(status_code::resource_exhausted));
    ADD_FAILURE() << "no remote_error";
  } catch (const remote_error& e) {
    EXPECT_EQ(e.code(), status_code::resource_exhausted);
    EXPECT_EQ(e.type(), "refwire::rpc::rpc_error");
    EXPECT_STREQ(e.what(), "calc.v1.fail_with: failed on purpose");
  }
  // A code the wire cannot carry (a cast number, or ok) arrives as internal, naming the number.
  for (const int code : {255, 0}) {
    try {
      calc.call<&calculator::fail_with>(code);
      ADD_FAILURE() << "no remote_error for code " << code;
    } catch (const remote_error& e) {
      EXPECT_EQ(e.code(), status_code::internal);
      EXPECT_EQ(e.type(), "refwire::rpc::rpc_error");
      EXPECT_EQ(std::string(e.what()),
                "calc.v1.fail_with: failed on purpose (status code " + std::to_string(code) + ")");
    }
  }
  try {
    calc.call<&calculator::fail_with>(-1);
    ADD_FAILURE() << "no remote_error";
  } catch (const remote_error& e) {
    EXPECT_EQ(e.code(), status_code::internal);
    EXPECT_EQ(e.type(), "unknown exception");
  }
  try {
    (void)calc.call<&calculator::range>(-1);
    ADD_FAILURE() << "no remote_error";
  } catch (const remote_error& e) {
    EXPECT_EQ(e.type(), "std::invalid_argument");
  }
  EXPECT_EQ(calc.call<&calculator::add>(1, 1), 2);
}

TEST_P(rpc_calls, notify_is_one_way_and_ordered_before_later_calls) {
  served s(GetParam().t);
  client<calculator> calc(s.uri, {.codec = GetParam().c});
  for (int i = 0; i < 100; ++i) calc.notify<&calculator::log>("line " + std::to_string(i));
  EXPECT_EQ(calc.call<&calculator::logged>(), 100u);  // same connection: handled in order
  const auto lines = s.impl.lines();
  ASSERT_EQ(lines.size(), 100u);
  EXPECT_EQ(lines.front(), "line 0");
  EXPECT_EQ(lines.back(), "line 99");
}

TEST_P(rpc_calls, async_calls_complete_out_of_the_order_they_are_collected) {
  served s(GetParam().t);
  client<calculator> calc(s.uri, {.codec = GetParam().c});
  std::vector<refwire::rpc::pending<int>> calls;
  for (int i = 0; i < 200; ++i) calls.push_back(calc.async_call<&calculator::add>(i, 1000));
  for (int i = 199; i >= 0; --i) EXPECT_EQ(calls[static_cast<std::size_t>(i)].get(), i + 1000);
  auto slow = calc.async_call<&calculator::sleep_ms>(300);
  EXPECT_FALSE(slow.wait_for(20ms));
  EXPECT_TRUE(slow.wait_for(5s));
  EXPECT_TRUE(slow.ready());
  slow.get();
  EXPECT_FALSE(slow.valid());
  expect_rpc_error([&] { slow.get(); }, status_code::invalid_argument, "no call");

  rpctest::summary out;
  const std::vector<rpctest::item> items = {{1, "x", 1.25}};
  auto with_out = calc.async_call<&calculator::total>(items, out);
  EXPECT_EQ(with_out.get(), 1);
  EXPECT_EQ(out, (rpctest::summary{1.25, 1, "ok"}));
}

TEST_P(rpc_calls, cancelled_calls_complete_with_cancelled_and_late_replies_are_dropped) {
  served s(GetParam().t);
  client<calculator> calc(s.uri, {.codec = GetParam().c});
  auto slow = calc.async_call<&calculator::sleep_ms>(200);
  slow.cancel();
  expect_rpc_error([&] { slow.get(); }, status_code::cancelled, "calc.v1.sleep_ms: cancelled");
  EXPECT_EQ(calc.call<&calculator::add>(4, 5), 9);  // after the late reply of sleep_ms
}

TEST_P(rpc_calls, a_deadline_against_a_sleeping_handler) {
  served s(GetParam().t);
  client<calculator> calc(s.uri, {.codec = GetParam().c});
  const auto start = std::chrono::steady_clock::now();
  expect_rpc_error([&] { calc.call<&calculator::sleep_ms>({.timeout = 100ms}, 700); },
                   status_code::deadline_exceeded, "calc.v1.sleep_ms: no reply before the deadline");
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 100ms);
  EXPECT_LT(took, 600ms);
  EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);  // answered after the sleep; its late reply dropped
}

TEST_P(rpc_calls, eight_threads_share_one_client) {
  served s(GetParam().t);
  client<calculator> calc(s.uri, {.codec = GetParam().c});
  const int per_thread = GetParam().c == codec::binary ? 10000 : 2000;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        if (calc.call<&calculator::add>(t * 100000, i) != t * 100000 + i) wrong.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_P(rpc_calls, compression_above_the_threshold) {
  served s(GetParam().t);
  client<calculator> calc(s.uri, {.codec = GetParam().c,
                                  .compression = refwire::compression::lz4,
                                  .compression_threshold = 64});
  const std::string big(100000, 'z');
  EXPECT_EQ(calc.call<&calculator::echo>(big), big);
  EXPECT_EQ(calc.call<&calculator::add>(20, 22), 42);
  EXPECT_EQ(calc.call<&calculator::range>(500).size(), 500u);
}

TEST_P(rpc_calls, two_interfaces_on_one_server) {
  served s(GetParam().t);
  client<rpctest::greeter> g(s.uri, {.codec = GetParam().c});
  client<calculator> calc(s.uri, {.codec = GetParam().c});
  EXPECT_EQ(g.call<&rpctest::greeter::greet>(std::string("refwire")), "hello, refwire");
  EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
}

class rpc_transport : public testing::TestWithParam<transport> {};
INSTANTIATE_TEST_SUITE_P(every_transport, rpc_transport,
                         testing::Values(transport::inproc, transport::unix_socket, transport::tcp, transport::shm),
                         [](const testing::TestParamInfo<transport>& p) { return rpctest::to_string(p.param); });

TEST_P(rpc_transport, a_changed_interface_is_unimplemented_naming_the_method_and_both_signatures) {
  served s(GetParam());
  client<rpctest::changed::calculator> old(s.uri);
  expect_rpc_error([&] { (void)old.call<&rpctest::changed::calculator::add>(std::int64_t{1}, std::int64_t{2}); },
                   status_code::unimplemented,
                   "calc.v1.add: the server at " + s.uri + " has another signature: client (i64,i64)->i64, server "
                   "(i32,i32)->i32");
  expect_rpc_error([&] { (void)old.call<&rpctest::changed::calculator::subtract>(1, 2); },
                   status_code::unimplemented, "calc.v1.subtract is not served at " + s.uri);
  EXPECT_EQ(old.call<&rpctest::changed::calculator::range>(3).size(), 3u);  // unchanged methods still work
}

TEST_P(rpc_transport, an_evolved_argument_struct_is_accepted_over_json_and_protobuf_not_binary) {
  served s(GetParam());
  const std::vector<rpctest::evolved::item> items = {{1, "a", 1.5, "red"}, {2, "b", 2.5, std::nullopt}};
  for (codec c : {codec::json, codec::protobuf}) {
    client<rpctest::evolved::calculator> newer(s.uri, {.codec = c});
    rpctest::summary out;
    EXPECT_EQ(newer.call<&rpctest::evolved::calculator::total>(items, out), 2) << refwire::rpc::to_string(c);
    EXPECT_EQ(out, (rpctest::summary{4.0, 2, "ok"}));
  }
  client<rpctest::evolved::calculator> binary(s.uri, {.codec = codec::binary});
  rpctest::summary out;
  expect_rpc_error([&] { (void)binary.call<&rpctest::evolved::calculator::total>(items, out); },
                   status_code::unimplemented, "calc.v1.total: the server at " + s.uri + " has another signature");
}

TEST_P(rpc_transport, a_codec_the_endpoint_refuses_names_what_it_accepts) {
  served s(GetParam(), {.codecs = {codec::json, codec::protobuf}});
  expect_rpc_error([&] { client<calculator> c(s.uri, {.codec = codec::binary}); }, status_code::invalid_argument,
                   "codec binary is not accepted at " + s.uri + ", which accepts json, protobuf");
  served z(GetParam(), {.compressions = {refwire::compression::none}});
  expect_rpc_error([&] { client<calculator> c(z.uri, {.compression = refwire::compression::lz4}); },
                   status_code::invalid_argument,
                   "compression lz4 is not accepted at " + z.uri + ", which accepts none");
  client<calculator> json(s.uri, {.codec = codec::json});
  EXPECT_EQ(json.call<&calculator::add>(1, 2), 3);
}

TEST_P(rpc_transport, a_request_longer_than_max_frame_size_is_not_sent) {
  served s(GetParam(), {}, {.max_frame_size = 4096});
  client<calculator> calc(s.uri);
  expect_rpc_error([&] { (void)calc.call<&calculator::echo>(std::string(10000, 'x')); },
                   status_code::resource_exhausted, "is longer than max_frame_size (4096)");
  expect_rpc_error([&] { (void)calc.call<&calculator::range>(1000); }, status_code::resource_exhausted,
                   "calc.v1.range: the reply of");
  EXPECT_EQ(calc.call<&calculator::add>(1, 2), 3);
}

TEST_P(rpc_transport, nobody_listening_is_unavailable_and_reconnect_follows_a_restart) {
  rpctest::temp_dir dir;
  const std::string where = GetParam() == transport::tcp ? std::string() : rpctest::listen_uri(GetParam(), dir);
  rpctest::calculator_impl impl;
  std::string uri;
  auto first = std::make_unique<refwire::rpc::server>();
  first->serve<calculator>(impl);
  uri = first->listen(GetParam() == transport::tcp ? "tcp://127.0.0.1:0" : where);
  first->start();
  client<calculator> again(uri);
  client<calculator> once(uri, {.reconnect = false});
  EXPECT_EQ(again.call<&calculator::add>(1, 1), 2);
  EXPECT_EQ(once.call<&calculator::add>(1, 1), 2);
  first.reset();  // stop: the connections close

  expect_rpc_error([&] { (void)again.call<&calculator::add>(1, 1); }, status_code::unavailable, "");
  expect_rpc_error([&] { client<calculator> none(uri); }, status_code::unavailable, "cannot connect to " + uri);

  refwire::rpc::server second;
  second.serve<calculator>(impl);
  ASSERT_EQ(second.listen(uri), uri);  // the same address again (tcp: the same port)
  second.start();
  EXPECT_EQ(again.call<&calculator::add>(2, 2), 4);  // connects again at once
  // once finds its connection dead on this call, and stays without one
  expect_rpc_error([&] { (void)once.call<&calculator::add>(2, 2); }, status_code::unavailable, "calc.v1.add: ");
  expect_rpc_error([&] { (void)once.call<&calculator::add>(2, 2); }, status_code::unavailable, "reconnect is off");
}

TEST(rpc_server, serving_a_method_id_twice_is_invalid_argument) {
  rpctest::calculator_impl impl;
  refwire::rpc::server s;
  s.serve<calculator>(impl);
  expect_rpc_error([&] { s.serve<calculator>(impl); }, status_code::invalid_argument,
                   "serve<I>: calc.v1.add has the method id ");
  expect_rpc_error([&] { s.serve<calculator>(impl); }, status_code::invalid_argument, "which is already served");
}

TEST(rpc_server, a_malformed_uri_is_invalid_argument) {
  refwire::rpc::server s;
  expect_rpc_error([&] { (void)s.listen("tcp://localhost"); }, status_code::invalid_argument, "tcp://localhost");
  expect_rpc_error([&] { client<calculator> c("nowhere"); }, status_code::invalid_argument, "nowhere");
}

TEST(rpc_server, stop_finishes_the_call_in_flight) {
  served s(transport::unix_socket);
  client<calculator> calc(s.uri);
  auto slow = calc.async_call<&calculator::sleep_ms>(300);
  std::this_thread::sleep_for(50ms);  // the handler is running
  s.server.stop();
  EXPECT_NO_THROW(slow.get());
  expect_rpc_error([&] { (void)calc.call<&calculator::add>(1, 1); }, status_code::unavailable, "");
}

// The hostile peers (raw bytes against a server) are in hostile_server_test.cpp.

}  // namespace
