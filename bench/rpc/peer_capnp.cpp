// bench/rpc/peer_capnp.cpp: the Cap'n Proto RPC peer of bench_rpc (peer.hpp).
//
// kj async I/O and a two-party RPC system over a unix or tcp stream, on both
// sides (what capnp::EzRpc does, with a reader limit we choose and one event
// loop per thread kept for the thread's lifetime, so a Conn sample measures a
// connection rather than the setup of an event loop). A client belongs to the
// thread that made it (kj's event loop is per thread): shared_client is false.
// Every call converts the rpcbench values to the builders and back, on both
// sides, as a user holding these structs would.
#include "peer.hpp"

#include <capnp/message.h>
#include <capnp/rpc-twoparty.h>
#include <kj/async-io.h>
#include <kj/async-unix.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "rpc_peers.capnp.h"

namespace rpcbench {
namespace {

using capnp::rpc::twoparty::Side;
using rpcpeers::cp::Bench;

// Bytes8M is about a million words: the default limit (8 Mi words) holds it;
// set explicitly so that the row does not depend on the default.
capnp::ReaderOptions reader_options() {
  capnp::ReaderOptions o;
  o.traversalLimitInWords = 64u * 1024 * 1024;
  return o;
}

// kj allows one event loop per thread: every client (and the server) of a
// thread uses this one, made by the first connect on the thread.
kj::AsyncIoContext& thread_io() {
  thread_local kj::AsyncIoContext io = kj::setupAsyncIo();
  return io;
}

template <class F>
auto kj_call(const char* what, F&& f) {
  try {
    return f();
  } catch (const kj::Exception& e) {
    throw std::runtime_error(std::string("capnp ") + what + ": " + e.getDescription().cStr());
  }
}

capnp::Text::Reader text(const std::string& s) { return {s.data(), s.size()}; }
std::string str(capnp::Text::Reader t) { return {t.begin(), t.size()}; }

capnp::Data::Reader data(const bytes& b) {
  return {reinterpret_cast<const capnp::byte*>(b.data()), b.size()};
}
bytes to_bytes(capnp::Data::Reader d) {
  const auto* p = reinterpret_cast<const std::byte*>(d.begin());
  return bytes(p, p + d.size());
}

// -- rpcbench values <-> builders and readers (both sides) --

void to_capnp(const order& in, rpcpeers::cp::Order::Builder m) {
  m.setId(capnp::Data::Reader(reinterpret_cast<const capnp::byte*>(in.id.bytes.data()), in.id.bytes.size()));
  m.setAt(std::chrono::duration_cast<std::chrono::nanoseconds>(in.at.time_since_epoch()).count());
  m.setCustomer(text(in.customer));
  auto lines = m.initLines(static_cast<unsigned>(in.lines.size()));
  for (unsigned i = 0; i < lines.size(); ++i) {
    const line& l = in.lines[i];
    lines[i].setSku(text(l.sku));
    lines[i].setQty(l.qty);
    lines[i].setPrice(l.price);
  }
  if (in.note) m.setNote(text(*in.note));
}

order from_capnp(rpcpeers::cp::Order::Reader m) {
  order out;
  const capnp::Data::Reader id = m.getId();
  if (id.size() != out.id.bytes.size()) {
    KJ_FAIL_REQUIRE("cx: the order's id has the wrong size (16 bytes expected)", id.size());
  }
  std::memcpy(out.id.bytes.data(), id.begin(), out.id.bytes.size());
  out.at = refwire::timestamp(
      std::chrono::duration_cast<refwire::timestamp::duration>(std::chrono::nanoseconds(m.getAt())));
  out.customer = str(m.getCustomer());
  const auto lines = m.getLines();
  out.lines.reserve(lines.size());
  for (const auto l : lines) out.lines.push_back(line{str(l.getSku()), l.getQty(), l.getPrice()});
  if (m.hasNote()) out.note = str(m.getNote());
  return out;
}

// -- server --

// Cap'n Proto's interfaces (Bench::Server, TaskSet::ErrorHandler) have virtual
// functions and protected or non-virtual destructors; they are never deleted
// through those bases here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"

class capnp_service final : public Bench::Server {
 protected:
  kj::Promise<void> add(AddContext ctx) override {
    const auto p = ctx.getParams();
    ctx.getResults().setSum(impl_.add(p.getA(), p.getB()));
    return kj::READY_NOW;
  }
  kj::Promise<void> ping(PingContext) override {
    impl_.ping();
    return kj::READY_NOW;
  }
  kj::Promise<void> echo(EchoContext ctx) override {
    const std::string out = impl_.echo(str(ctx.getParams().getS()));
    ctx.getResults().setS(text(out));
    return kj::READY_NOW;
  }
  kj::Promise<void> range(RangeContext ctx) override {
    const std::vector<item> items = impl_.range(ctx.getParams().getN());
    auto list = ctx.getResults().initItems(static_cast<unsigned>(items.size()));
    for (unsigned i = 0; i < list.size(); ++i) {
      list[i].setId(items[i].id);
      list[i].setName(text(items[i].name));
      list[i].setPrice(items[i].price);
    }
    return kj::READY_NOW;
  }
  kj::Promise<void> cx(CxContext ctx) override {
    const order in = from_capnp(ctx.getParams().getOrder());
    summary out;
    const int result = impl_.cx(in, out);
    auto r = ctx.getResults();
    r.setResult(result);
    auto s = r.initOut();
    s.setTotal(out.total);
    s.setCount(out.count);
    s.setStatus(text(out.status));
    return kj::READY_NOW;
  }
  kj::Promise<void> put(PutContext ctx) override {
    impl_.put(to_bytes(ctx.getParams().getData()));
    return kj::READY_NOW;
  }
  kj::Promise<void> echoBytes(EchoBytesContext ctx) override {
    const bytes out = impl_.echo_bytes(to_bytes(ctx.getParams().getData()));
    ctx.getResults().setData(data(out));
    return kj::READY_NOW;
  }

 private:
  service_impl impl_;
};

// One accepted connection and its RPC system.
struct server_connection {
  kj::Own<kj::AsyncIoStream> stream;
  capnp::TwoPartyVatNetwork network;
  capnp::RpcSystem<capnp::rpc::twoparty::VatId> rpc;

  server_connection(kj::Own<kj::AsyncIoStream>&& s, capnp::Capability::Client bootstrap)
      : stream(kj::mv(s)),
        network(*stream, Side::SERVER, reader_options()),
        rpc(capnp::makeRpcServer(network, kj::mv(bootstrap))) {}
};

struct error_log final : kj::TaskSet::ErrorHandler {
  void taskFailed(kj::Exception&& e) override {
    std::fprintf(stderr, "capnp peer: a connection failed: %s\n", e.getDescription().cStr());
  }
};

#pragma GCC diagnostic pop

kj::Promise<void> accept_loop(kj::ConnectionReceiver& listener, capnp::Capability::Client bootstrap,
                              kj::TaskSet& connections) {
  return listener.accept().then(
      [&listener, bootstrap, &connections](kj::Own<kj::AsyncIoStream>&& stream) mutable {
        auto conn = kj::heap<server_connection>(kj::mv(stream), bootstrap);
        auto gone = conn->network.onDisconnect();
        connections.add(gone.attach(kj::mv(conn)));
        return accept_loop(listener, kj::mv(bootstrap), connections);
      });
}

// Resolves when standard input reaches end of file (or cannot be read). The
// descriptor stays blocking (it may be a terminal): after each wake-up it is
// read only while poll says a read will not block.
kj::Promise<void> stdin_eof(kj::UnixEventPort::FdObserver& in) {
  return in.whenBecomesReadable().then([&in]() -> kj::Promise<void> {
    char buf[256];
    pollfd p{0, POLLIN, 0};
    while (::poll(&p, 1, 0) > 0) {
      const ssize_t n = ::read(0, buf, sizeof buf);
      if (n == 0 || (n < 0 && errno != EINTR)) return kj::READY_NOW;
    }
    return stdin_eof(in);
  });
}

int serve(std::string_view transport, const std::string& dir) {
  std::string bind;
  std::string socket_path;
  if (transport == "unix") {
    socket_path = dir + "/capnp.sock";
    bind = "unix:" + socket_path;
  } else if (transport == "tcp") {
    bind = "127.0.0.1:0";
  } else {
    std::fprintf(stderr, "capnp peer: unknown transport '%.*s' (unix or tcp)\n",
                 static_cast<int>(transport.size()), transport.data());
    return 2;
  }
  int status = 0;
  try {
    kj::AsyncIoContext& io = thread_io();
    auto address = io.provider->getNetwork().parseAddress(bind).wait(io.waitScope);
    kj::Own<kj::ConnectionReceiver> listener = address->listen();
    const std::string ready =
        transport == "unix" ? bind : "127.0.0.1:" + std::to_string(listener->getPort());
    std::printf("ready %s\n", ready.c_str());
    std::fflush(stdout);

    error_log errors;
    {
      kj::TaskSet connections(errors);
      kj::UnixEventPort::FdObserver in(io.unixEventPort, 0, kj::UnixEventPort::FdObserver::OBSERVE_READ);
      capnp::Capability::Client bootstrap = kj::heap<capnp_service>();
      accept_loop(*listener, kj::mv(bootstrap), connections)
          .exclusiveJoin(stdin_eof(in))
          .wait(io.waitScope);
    }  // closes the connections still open
  } catch (const kj::Exception& e) {
    std::fprintf(stderr, "capnp peer: cannot serve on %s: %s\n", bind.c_str(), e.getDescription().cStr());
    status = 1;
  }
  if (!socket_path.empty()) ::unlink(socket_path.c_str());
  return status;
}

// -- client --

class capnp_client final : public peer_client {
 public:
  capnp_client(kj::AsyncIoContext& io, kj::Own<kj::AsyncIoStream>&& stream)
      : ws_(io.waitScope),
        stream_(kj::mv(stream)),
        network_(*stream_, Side::CLIENT, reader_options()),
        rpc_(capnp::makeRpcClient(network_)),
        bench_(bootstrap(rpc_)) {}
  // kj's destructors may throw (noexcept(false)); peer_client's may not. One
  // that throws here (a broken event loop) ends the program.
  ~capnp_client() noexcept override {}
  capnp_client(const capnp_client&) = delete;
  capnp_client& operator=(const capnp_client&) = delete;

  int add(int a, int b) override {
    on_own_thread("add");
    return kj_call("add", [&] {
      auto req = bench_.addRequest();
      req.setA(a);
      req.setB(b);
      return req.send().wait(ws_).getSum();
    });
  }
  void ping() override {
    on_own_thread("ping");
    kj_call("ping", [&] { bench_.pingRequest().send().wait(ws_); });
  }
  std::string echo(const std::string& s) override {
    on_own_thread("echo");
    return kj_call("echo", [&] {
      auto req = bench_.echoRequest();
      req.setS(text(s));
      return str(req.send().wait(ws_).getS());
    });
  }
  std::vector<item> range(int n) override {
    on_own_thread("range");
    return kj_call("range", [&] {
      auto req = bench_.rangeRequest();
      req.setN(n);
      auto rep = req.send().wait(ws_);
      const auto list = rep.getItems();
      std::vector<item> out;
      out.reserve(list.size());
      for (const auto i : list) out.push_back(item{i.getId(), str(i.getName()), i.getPrice()});
      return out;
    });
  }
  int cx(const order& in, summary& out) override {
    on_own_thread("cx");
    return kj_call("cx", [&] {
      auto req = bench_.cxRequest();
      to_capnp(in, req.initOrder());
      auto rep = req.send().wait(ws_);
      const auto s = rep.getOut();
      out.total = s.getTotal();
      out.count = s.getCount();
      out.status = str(s.getStatus());
      return rep.getResult();
    });
  }
  void put(const bytes& b) override {
    on_own_thread("put");
    kj_call("put", [&] {
      auto req = bench_.putRequest();
      req.setData(data(b));
      req.send().wait(ws_);
    });
  }
  bytes echo_bytes(const bytes& b) override {
    on_own_thread("echoBytes");
    return kj_call("echoBytes", [&] {
      auto req = bench_.echoBytesRequest();
      req.setData(data(b));
      return to_bytes(req.send().wait(ws_).getData());
    });
  }

 private:
  // kj's event loop belongs to one thread: a client used from another would
  // wait on a loop that is not running there. Say so instead.
  void on_own_thread(const char* what) const {
    if (std::this_thread::get_id() != owner_) {
      throw std::runtime_error(std::string("capnp ") + what +
                               ": this client belongs to the thread that connected it (one kj event loop per thread)");
    }
  }

  static Bench::Client bootstrap(capnp::RpcSystem<capnp::rpc::twoparty::VatId>& rpc) {
    capnp::word scratch[4]{};
    capnp::MallocMessageBuilder message(kj::arrayPtr(scratch, 4));
    auto server = message.getRoot<capnp::rpc::twoparty::VatId>();
    server.setSide(Side::SERVER);
    return rpc.bootstrap(server).castAs<Bench>();
  }

  std::thread::id owner_ = std::this_thread::get_id();
  kj::WaitScope& ws_;
  kj::Own<kj::AsyncIoStream> stream_;
  capnp::TwoPartyVatNetwork network_;
  capnp::RpcSystem<capnp::rpc::twoparty::VatId> rpc_;
  Bench::Client bench_;
};

std::unique_ptr<peer_client> connect(const std::string& address) {
  return kj_call("connect", [&]() -> std::unique_ptr<peer_client> {
    kj::AsyncIoContext& io = thread_io();
    auto addr = io.provider->getNetwork().parseAddress(address).wait(io.waitScope);
    auto stream = addr->connect().wait(io.waitScope);
    return std::make_unique<capnp_client>(io, kj::mv(stream));
  });
}

}  // namespace

const peer& capnp_peer() {
  static const peer p{"capnp", serve, connect, false, {}};
  return p;
}

}  // namespace rpcbench
