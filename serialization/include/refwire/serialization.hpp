#pragma once
// refwire/serialization.hpp: everything a user of refwire's serialization needs.
//
//   #include <refwire/serialization.hpp>
//
//   struct point { int x; double y; std::string name; };
//   BOOST_DESCRIBE_STRUCT(point, (), (x, y, name))
//
//   std::vector<std::byte> b = refwire::serialize(p);
//   point q = refwire::deserialize<point>(b);

#include <boost/describe.hpp>

#include <refwire/serialization/binary.hpp>
#include <refwire/serialization/compression.hpp>
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/format.hpp>
#include <refwire/serialization/formats.hpp>
#include <refwire/serialization/json.hpp>
#include <refwire/serialization/json_value.hpp>
#include <refwire/serialization/options.hpp>
#include <refwire/serialization/protobuf.hpp>
#include <refwire/serialization/reflect.hpp>
#include <refwire/serialization/serialize.hpp>
#include <refwire/serialization/snapshot.hpp>
#include <refwire/serialization/types.hpp>
