#pragma once
// refwire/rpc.hpp: RPC over unix sockets, TCP and in-process channels for
// interfaces described with BOOST_DESCRIBE_STRUCT (docs/rpc.md).
//
//   struct calculator {                                  // shared by both sides
//     virtual ~calculator() = default;
//     virtual int add(int a, int b) = 0;
//   };
//   BOOST_DESCRIBE_STRUCT(calculator, (), (add))
//   REFWIRE_NAME(calculator, "calc.v1")
//
//   refwire::rpc::server server;  server.serve<calculator>(impl);
//   server.listen("unix:///tmp/calc.sock");  server.start();
//
//   refwire::rpc::client<calculator> calc("unix:///tmp/calc.sock");
//   int r = calc.call<&calculator::add>(2, 3);

#include <refwire/rpc/call_context.hpp>
#include <refwire/rpc/client.hpp>
#include <refwire/rpc/error.hpp>
#include <refwire/rpc/hooks.hpp>
#include <refwire/rpc/options.hpp>
#include <refwire/rpc/pending.hpp>
#include <refwire/rpc/server.hpp>
#include <refwire/rpc/status.hpp>
