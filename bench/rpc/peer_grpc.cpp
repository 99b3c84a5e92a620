// bench/rpc/peer_grpc.cpp: the gRPC C++ peer of bench_rpc (peer.hpp).
//
// Server: the sync service API (a gRPC thread pool runs the handlers). Client:
// sync unary calls on a stub; the throughput rows use the callback API, which
// keeps calls in flight without a thread blocked in each. Every call converts
// the rpcbench values to the generated messages and back, on both sides, as a
// user holding these structs would.
#include "peer.hpp"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "rpc_peers.grpc.pb.h"

namespace rpcbench {
namespace {

// Bytes8M is 8,294,400 bytes; gRPC refuses messages above 4 MiB by default.
constexpr int max_message = 64 << 20;

// -- rpcbench values <-> messages (both sides) --

void to_pb(const order& in, rpcpeers::Order& m) {
  m.set_id(reinterpret_cast<const char*>(in.id.bytes.data()), in.id.bytes.size());
  m.set_at(std::chrono::duration_cast<std::chrono::nanoseconds>(in.at.time_since_epoch()).count());
  m.set_customer(in.customer);
  m.mutable_lines()->Reserve(static_cast<int>(in.lines.size()));
  for (const line& l : in.lines) {
    rpcpeers::Line* p = m.add_lines();
    p->set_sku(l.sku);
    p->set_qty(l.qty);
    p->set_price(l.price);
  }
  if (in.note) m.set_note(*in.note);
}

// False when the message cannot be an order (an id that is not 16 bytes).
bool from_pb(const rpcpeers::Order& m, order& out) {
  if (m.id().size() != out.id.bytes.size()) return false;
  std::memcpy(out.id.bytes.data(), m.id().data(), out.id.bytes.size());
  out.at = refwire::timestamp(
      std::chrono::duration_cast<refwire::timestamp::duration>(std::chrono::nanoseconds(m.at())));
  out.customer = m.customer();
  out.lines.clear();
  out.lines.reserve(static_cast<std::size_t>(m.lines_size()));
  for (const rpcpeers::Line& p : m.lines()) out.lines.push_back(line{p.sku(), p.qty(), p.price()});
  if (m.has_note()) {
    out.note = m.note();
  } else {
    out.note.reset();
  }
  return true;
}

void to_pb(const item& in, rpcpeers::Item& m) {
  m.set_id(in.id);
  m.set_name(in.name);
  m.set_price(in.price);
}

void to_pb(const summary& in, rpcpeers::Summary& m) {
  m.set_total(in.total);
  m.set_count(in.count);
  m.set_status(in.status);
}

void set_blob(const bytes& b, rpcpeers::Blob& m) {
  m.set_data(reinterpret_cast<const char*>(b.data()), b.size());
}

bytes get_blob(const rpcpeers::Blob& m) {
  const auto* p = reinterpret_cast<const std::byte*>(m.data().data());
  return bytes(p, p + m.data().size());
}

// -- server --

class grpc_service final : public rpcpeers::Bench::Service {
 public:
  grpc::Status Add(grpc::ServerContext*, const rpcpeers::AddRequest* req, rpcpeers::AddReply* rep) override {
    rep->set_sum(impl_.add(req->a(), req->b()));
    return grpc::Status::OK;
  }
  grpc::Status Ping(grpc::ServerContext*, const rpcpeers::Empty*, rpcpeers::Empty*) override {
    impl_.ping();
    return grpc::Status::OK;
  }
  grpc::Status Echo(grpc::ServerContext*, const rpcpeers::Text* req, rpcpeers::Text* rep) override {
    rep->set_s(impl_.echo(req->s()));
    return grpc::Status::OK;
  }
  grpc::Status Range(grpc::ServerContext*, const rpcpeers::RangeRequest* req, rpcpeers::Items* rep) override {
    const std::vector<item> items = impl_.range(req->n());
    rep->mutable_items()->Reserve(static_cast<int>(items.size()));
    for (const item& i : items) to_pb(i, *rep->add_items());
    return grpc::Status::OK;
  }
  grpc::Status Cx(grpc::ServerContext*, const rpcpeers::Order* req, rpcpeers::CxReply* rep) override {
    order in;
    if (!from_pb(*req, in)) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "Cx: the order's id has " + std::to_string(req->id().size()) + " bytes, not 16"};
    }
    summary out;
    rep->set_result(impl_.cx(in, out));
    to_pb(out, *rep->mutable_out());
    return grpc::Status::OK;
  }
  grpc::Status Put(grpc::ServerContext*, const rpcpeers::Blob* req, rpcpeers::Empty*) override {
    impl_.put(get_blob(*req));
    return grpc::Status::OK;
  }
  grpc::Status EchoBytes(grpc::ServerContext*, const rpcpeers::Blob* req, rpcpeers::Blob* rep) override {
    set_blob(impl_.echo_bytes(get_blob(*req)), *rep);
    return grpc::Status::OK;
  }

 private:
  service_impl impl_;
};

// Blocks until standard input reaches end of file (or cannot be read).
void wait_for_stdin_eof() {
  char buf[256];
  for (;;) {
    const ssize_t n = ::read(0, buf, sizeof buf);
    if (n == 0) return;
    if (n < 0 && errno != EINTR) return;
  }
}

int serve(std::string_view transport, const std::string& dir) {
  std::string listen;
  std::string socket_path;
  if (transport == "unix") {
    socket_path = dir + "/grpc.sock";
    listen = "unix:" + socket_path;
  } else if (transport == "tcp") {
    listen = "127.0.0.1:0";
  } else {
    std::fprintf(stderr, "grpc peer: unknown transport '%.*s' (unix or tcp)\n",
                 static_cast<int>(transport.size()), transport.data());
    return 2;
  }
  grpc_service service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  builder.SetMaxReceiveMessageSize(max_message);
  builder.SetMaxSendMessageSize(max_message);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "grpc peer: cannot listen on %s\n", listen.c_str());
    return 1;
  }
  const std::string address = transport == "unix" ? listen : "127.0.0.1:" + std::to_string(port);
  std::printf("ready %s\n", address.c_str());
  std::fflush(stdout);

  wait_for_stdin_eof();
  // Calls still running get a second; the driver closes its clients first.
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  server->Wait();
  server.reset();
  if (!socket_path.empty()) ::unlink(socket_path.c_str());
  return 0;
}

// -- client --

std::shared_ptr<grpc::Channel> open_channel(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(max_message);
  args.SetMaxSendMessageSize(max_message);
  // Each channel its own connection: without this, channels to one address
  // share the process-wide subchannel (one TCP connection for "8 clients",
  // and a Conn sample that reuses a connection instead of making one).
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10))) {
    throw std::runtime_error("grpc: cannot connect to " + address + " within 10 s");
  }
  return channel;
}

void check(const grpc::Status& status, const char* method) {
  if (!status.ok()) {
    throw std::runtime_error(std::string("grpc ") + method + ": " + status.error_message() + " (code " +
                             std::to_string(static_cast<int>(status.error_code())) + ")");
  }
}

class grpc_client final : public peer_client {
 public:
  explicit grpc_client(const std::string& address)
      : channel_(open_channel(address)), stub_(rpcpeers::Bench::NewStub(channel_)) {}

  int add(int a, int b) override {
    rpcpeers::AddRequest req;
    req.set_a(a);
    req.set_b(b);
    rpcpeers::AddReply rep;
    grpc::ClientContext ctx;
    check(stub_->Add(&ctx, req, &rep), "Add");
    return rep.sum();
  }
  void ping() override {
    rpcpeers::Empty req;
    rpcpeers::Empty rep;
    grpc::ClientContext ctx;
    check(stub_->Ping(&ctx, req, &rep), "Ping");
  }
  std::string echo(const std::string& s) override {
    rpcpeers::Text req;
    req.set_s(s);
    rpcpeers::Text rep;
    grpc::ClientContext ctx;
    check(stub_->Echo(&ctx, req, &rep), "Echo");
    return std::move(*rep.mutable_s());
  }
  std::vector<item> range(int n) override {
    rpcpeers::RangeRequest req;
    req.set_n(n);
    rpcpeers::Items rep;
    grpc::ClientContext ctx;
    check(stub_->Range(&ctx, req, &rep), "Range");
    std::vector<item> out;
    out.reserve(static_cast<std::size_t>(rep.items_size()));
    for (const rpcpeers::Item& i : rep.items()) out.push_back(item{i.id(), i.name(), i.price()});
    return out;
  }
  int cx(const order& in, summary& out) override {
    rpcpeers::Order req;
    to_pb(in, req);
    rpcpeers::CxReply rep;
    grpc::ClientContext ctx;
    check(stub_->Cx(&ctx, req, &rep), "Cx");
    out.total = rep.out().total();
    out.count = rep.out().count();
    out.status = rep.out().status();
    return rep.result();
  }
  void put(const bytes& b) override {
    rpcpeers::Blob req;
    set_blob(b, req);
    rpcpeers::Empty rep;
    grpc::ClientContext ctx;
    check(stub_->Put(&ctx, req, &rep), "Put");
  }
  bytes echo_bytes(const bytes& b) override {
    rpcpeers::Blob req;
    set_blob(b, req);
    rpcpeers::Blob rep;
    grpc::ClientContext ctx;
    check(stub_->EchoBytes(&ctx, req, &rep), "EchoBytes");
    return get_blob(rep);
  }

  rpcpeers::Bench::Stub& stub() { return *stub_; }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<rpcpeers::Bench::Stub> stub_;
};

// -- Sim at volume: the callback API --

// What the calls in flight share. Callbacks run on gRPC's threads.
struct sim_run {
  std::chrono::steady_clock::time_point deadline;
  std::atomic<std::uint64_t> completed{0};
  std::mutex m;
  std::condition_variable cv;
  int running = 0;     // chains not finished (guarded by m)
  std::string error;   // the first failure (guarded by m)
};

// One caller: a single call in flight, the next one started by the completion
// of the last (a ClientContext serves one call only, so each call gets a new one).
struct sim_chain {
  sim_run* run = nullptr;
  rpcpeers::Bench::Stub* stub = nullptr;
  std::unique_ptr<grpc::ClientContext> ctx;
  rpcpeers::AddRequest req;
  rpcpeers::AddReply rep;
  int a = 0;

  void finish(std::string error) {
    std::lock_guard lock(run->m);
    if (!error.empty() && run->error.empty()) run->error = std::move(error);
    if (--run->running == 0) run->cv.notify_all();
  }

  void issue() {
    ctx = std::make_unique<grpc::ClientContext>();
    ++a;
    req.set_a(a);
    req.set_b(1);
    stub->async()->Add(ctx.get(), &req, &rep, [this](grpc::Status status) {
      if (!status.ok()) return finish("grpc Add: " + status.error_message());
      if (rep.sum() != a + 1) {
        return finish("grpc Add(" + std::to_string(a) + ", 1) returned " + std::to_string(rep.sum()));
      }
      run->completed.fetch_add(1, std::memory_order_relaxed);
      if (std::chrono::steady_clock::now() >= run->deadline) return finish({});
      issue();
    });
  }
};

// `threads` calls in flight at once (the callback API's counterpart of
// `threads` callers blocked in a sync call), spread over `clients` channels.
std::uint64_t sim_throughput(const std::string& address, int threads, int clients,
                             std::chrono::nanoseconds duration) {
  if (threads < 1 || clients < 1) {
    throw std::invalid_argument("grpc sim_throughput: threads and clients must be at least 1 (got " +
                                std::to_string(threads) + ", " + std::to_string(clients) + ")");
  }
  std::vector<std::unique_ptr<grpc_client>> conns;
  for (int i = 0; i < clients; ++i) {
    conns.push_back(std::make_unique<grpc_client>(address));
    if (conns.back()->add(i, 1) != i + 1) throw std::runtime_error("grpc Add: wrong sum on a new channel");
  }
  sim_run run;
  std::vector<sim_chain> chains(static_cast<std::size_t>(threads));
  run.running = threads;
  run.deadline = std::chrono::steady_clock::now() + duration;
  for (std::size_t i = 0; i < chains.size(); ++i) {
    chains[i].run = &run;
    chains[i].stub = &conns[i % conns.size()]->stub();
    chains[i].a = static_cast<int>(i) * 1'000'000;
  }
  for (sim_chain& c : chains) c.issue();
  std::unique_lock lock(run.m);
  run.cv.wait(lock, [&] { return run.running == 0; });
  if (!run.error.empty()) throw std::runtime_error(run.error);
  return run.completed.load();
}

}  // namespace

const peer& grpc_peer() {
  static const peer p{
      "grpc",
      serve,
      [](const std::string& address) -> std::unique_ptr<peer_client> {
        return std::make_unique<grpc_client>(address);
      },
      true,
      sim_throughput,
  };
  return p;
}

}  // namespace rpcbench
