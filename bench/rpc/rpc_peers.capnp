# bench_rpc's shapes (shapes.hpp) as a Cap'n Proto interface. Compiled by
# capnp compile -oc++ at build time (peers.cmake).
@0xc69c37d9a8cb2412;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("rpcpeers::cp");

struct Item {
  id @0 :Int32;
  name @1 :Text;
  price @2 :Float64;
}

struct Line {
  sku @0 :Text;
  qty @1 :UInt32;
  price @2 :Float64;
}

struct Order {
  id @0 :Data;        # the uuid's 16 bytes
  at @1 :Int64;       # nanoseconds since the Unix epoch
  customer @2 :Text;
  lines @3 :List(Line);
  note @4 :Text;      # a null pointer (hasNote() false) is std::nullopt
}

struct Summary {
  total @0 :Float64;
  count @1 :UInt32;
  status @2 :Text;
}

interface Bench {
  add @0 (a :Int32, b :Int32) -> (sum :Int32);
  ping @1 () -> ();
  echo @2 (s :Text) -> (s :Text);
  range @3 (n :Int32) -> (items :List(Item));
  cx @4 (order :Order) -> (result :Int32, out :Summary);
  put @5 (data :Data) -> ();
  echoBytes @6 (data :Data) -> (data :Data);
}
