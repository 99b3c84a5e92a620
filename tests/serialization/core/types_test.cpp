// refwire::uuid and the error types.
#include <refwire/serialization/error.hpp>
#include <refwire/serialization/types.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <unordered_set>

TEST(uuid, parses_and_prints_the_canonical_form) {
  const auto id = refwire::uuid::parse("123E4567-e89b-12d3-A456-426614174000");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->bytes[0], std::byte{0x12});
  EXPECT_EQ(id->bytes[15], std::byte{0x00});
  EXPECT_EQ(id->bytes[6], std::byte{0x12});
  EXPECT_EQ(id->to_string(), "123e4567-e89b-12d3-a456-426614174000");
  EXPECT_TRUE(refwire::uuid{}.is_nil());
  EXPECT_EQ(refwire::uuid{}.to_string(), "00000000-0000-0000-0000-000000000000");
  EXPECT_EQ(refwire::uuid::from_string("ffffffff-ffff-ffff-ffff-ffffffffffff").to_string(),
            "ffffffff-ffff-ffff-ffff-ffffffffffff");
}

TEST(uuid, rejects_everything_else) {
  for (const char* bad : {"", "123e4567e89b12d3a456426614174000", "{123e4567-e89b-12d3-a456-426614174000}",
                          "123e4567-e89b-12d3-a456-42661417400", "123e4567-e89b-12d3-a456-4266141740000",
                          "123e4567_e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-42661417400g",
                          "123e456-7e89b-12d3-a456-426614174000"}) {
    EXPECT_FALSE(refwire::uuid::parse(bad)) << bad;
  }
  try {
    (void)refwire::uuid::from_string("nope");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "refwire::uuid: not a canonical UUID (8-4-4-4-12 hex digits): \"nope\"");
  }
}

TEST(uuid, orders_hashes_and_compares_by_bytes) {
  const auto a = refwire::uuid::from_string("00000000-0000-0000-0000-000000000001");
  const auto b = refwire::uuid::from_string("00000000-0000-0000-0000-000000000002");
  EXPECT_LT(a, b);
  EXPECT_NE(a, b);
  std::unordered_set<refwire::uuid> set{a, b, a};
  EXPECT_EQ(set.size(), 2u);
}

TEST(error, is_falsy_on_success_and_formats_its_message) {
  const refwire::error ok;
  EXPECT_FALSE(ok);
  EXPECT_EQ(ok.code(), refwire::errc::ok);
  EXPECT_EQ(ok.message(), "");
  const refwire::error e(refwire::errc::truncated, 13, "$.name", "truncated string, needs 12 bytes, 4 left");
  EXPECT_TRUE(e);
  EXPECT_EQ(e.message(), "$.name: truncated string, needs 12 bytes, 4 left, at offset 13");
  const refwire::decode_error thrown(e);
  EXPECT_STREQ(thrown.what(), "$.name: truncated string, needs 12 bytes, 4 left, at offset 13");
  EXPECT_EQ(thrown.code(), refwire::errc::truncated);
  EXPECT_EQ(thrown.offset(), 13u);
  EXPECT_EQ(thrown.path(), "$.name");
  EXPECT_EQ(thrown.reason(), "truncated string, needs 12 bytes, 4 left");
}

TEST(error, every_code_has_a_name) {
  EXPECT_EQ(refwire::to_string(refwire::errc::ok), "ok");
  EXPECT_EQ(refwire::to_string(refwire::errc::truncated), "truncated");
  EXPECT_EQ(refwire::to_string(refwire::errc::invalid_varint), "invalid_varint");
  EXPECT_EQ(refwire::to_string(refwire::errc::invalid_bool), "invalid_bool");
  EXPECT_EQ(refwire::to_string(refwire::errc::invalid_tag), "invalid_tag");
  EXPECT_EQ(refwire::to_string(refwire::errc::invalid_variant), "invalid_variant");
  EXPECT_EQ(refwire::to_string(refwire::errc::invalid_value), "invalid_value");
  EXPECT_EQ(refwire::to_string(refwire::errc::duplicate_key), "duplicate_key");
  EXPECT_EQ(refwire::to_string(refwire::errc::depth_limit), "depth_limit");
  EXPECT_EQ(refwire::to_string(refwire::errc::element_limit), "element_limit");
  EXPECT_EQ(refwire::to_string(refwire::errc::allocation_limit), "allocation_limit");
  EXPECT_EQ(refwire::to_string(refwire::errc::trailing_bytes), "trailing_bytes");
}
