// A translation unit that includes protobuf.hpp and nothing else of refwire:
// the entry points come with it. Part of format_registry_test.
#include <refwire/serialization/protobuf.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace {

struct plain {  // a PFR aggregate
  int a = 0;
};

}  // namespace

static_assert(refwire::format<refwire::protobuf>);

TEST(OneFormatHeader, ProtobufAloneGivesTheEntryPoints) {
  const std::vector<std::byte> bytes = refwire::serialize<refwire::protobuf>(plain{150});
  EXPECT_EQ(bytes, (std::vector<std::byte>{std::byte{0x08}, std::byte{0x96}, std::byte{0x01}}));
  EXPECT_EQ((refwire::deserialize<plain, refwire::protobuf>(bytes).a), 150);
}
