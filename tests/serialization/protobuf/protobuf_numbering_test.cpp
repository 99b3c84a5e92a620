// Protobuf field numbering: explicit numbers under numbering::explicit_only,
// reserved numbers and names (REFWIRE_TYPE_ATTRIBUTES), the `reserved`
// statements proto_schema writes (a golden .proto, accepted by protobuf's
// own parser), and what a decoder does with a reserved number on the wire.
//
// Regenerate the golden file after an intended schema change (then review the diff):
//   REFWIRE_UPDATE_GOLDEN=1 ./protobuf_numbering_test
#include <refwire/serialization.hpp>

#include <google/protobuf/compiler/parser.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#ifndef REFWIRE_GOLDEN_DIR
#error "REFWIRE_GOLDEN_DIR must name the directory of the golden files"
#endif

namespace shop {

/// Version 2 of an order: field 4 (`price`) was removed, `note` added as 7;
/// `legacy` is kept in memory only.
struct order {
  std::uint64_t id = 0;
  std::string customer;
  std::int32_t qty = 0;
  std::string note;
  std::string legacy;
  friend bool operator==(const order&, const order&) = default;
};
BOOST_DESCRIBE_STRUCT(order, (), (id, customer, qty, note, legacy))
REFWIRE_ATTRIBUTES(order, {.name = "id", .number = 1}, {.name = "customer", .number = 2},
                   {.name = "qty", .number = 3, .encoding = refwire::int_encoding::zigzag},
                   {.name = "note", .number = 7}, {.name = "legacy", .skip = true, .number = 5})
REFWIRE_TYPE_ATTRIBUTES(order, {.numbering = refwire::numbering::explicit_only,
                                .reserved = {6, 4},
                                .reserved_names = {"price", "discount"}})
REFWIRE_NAME(order, "Order")

/// Version 1 of the same message (positional numbers 1..4).
struct order_v1 {
  std::uint64_t id = 0;
  std::string customer;
  std::int32_t qty = 0;
  std::int64_t price = 0;
};
BOOST_DESCRIBE_STRUCT(order_v1, (), (id, customer, qty, price))
REFWIRE_ATTRIBUTES(order_v1, {.name = "qty", .encoding = refwire::int_encoding::zigzag})

/// Positional numbering with a reserved number that no field reaches; a
/// skipped field under explicit_only without a number reserves nothing.
struct sparse {
  std::int32_t a = 0;
  std::int32_t b = 0;
  friend bool operator==(const sparse&, const sparse&) = default;
};
BOOST_DESCRIBE_STRUCT(sparse, (), (a, b))
REFWIRE_TYPE_ATTRIBUTES(sparse, {.reserved = {9}})

struct cached {
  std::int32_t a = 0;
  std::string cache;
  std::int32_t b = 0;
};
BOOST_DESCRIBE_STRUCT(cached, (), (a, cache, b))
REFWIRE_ATTRIBUTES(cached, {.name = "a", .number = 1}, {.name = "cache", .skip = true}, {.name = "b", .number = 2})
REFWIRE_TYPE_ATTRIBUTES(cached, {.numbering = refwire::numbering::explicit_only})

}  // namespace shop

namespace {

using pbf = refwire::protobuf;

std::string hex(const std::vector<std::byte>& b) {
  std::string s;
  char buf[4];
  for (std::byte x : b) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned>(x));
    if (!s.empty()) s += ' ';
    s += buf;
  }
  return s;
}

std::vector<std::byte> bytes_of(std::initializer_list<int> b) {
  std::vector<std::byte> v;
  for (int x : b) v.push_back(static_cast<std::byte>(x));
  return v;
}

class collect_errors : public google::protobuf::io::ErrorCollector {
 public:
  std::string errors;
  void AddError(int line, int column, const std::string& message) override {
    errors += std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message + "\n";
  }
};

class pool_errors : public google::protobuf::DescriptorPool::ErrorCollector {
 public:
  std::string errors;
  void AddError(const std::string& filename, const std::string& element_name, const google::protobuf::Message*,
                ErrorLocation, const std::string& message) override {
    errors += filename + ": " + element_name + ": " + message + "\n";
  }
};

}  // namespace

TEST(protobuf_numbering, type_attributes_are_found_and_default_elsewhere) {
  constexpr refwire::type_attr a = refwire::detail::type_attributes_of<shop::order>();
  static_assert(a.numbering == refwire::numbering::explicit_only);
  static_assert(a.reserved.size() == 2 && a.reserved[0] == 6 && a.reserved[1] == 4);
  static_assert(a.reserved_names.size() == 2 && a.reserved_names[1] == "discount");
  constexpr refwire::type_attr d = refwire::detail::type_attributes_of<shop::order_v1>();
  static_assert(d.numbering == refwire::numbering::positional && d.reserved.size() == 0);
  SUCCEED();
}

TEST(protobuf_numbering, explicit_numbers_on_the_wire_field_by_field) {
  const shop::order o{150, "ann", -2, "hi", "not sent"};
  EXPECT_EQ(hex(refwire::serialize<pbf>(o)),
            "08 96 01 "        // field 1 varint: id 150
            "12 03 61 6e 6e "  // field 2 len: customer "ann"
            "18 03 "           // field 3 sint32: qty -2
            "3a 02 68 69");    // field 7 len: note "hi"; legacy (skipped) is not written
  shop::order back;
  back.legacy = "kept";
  ASSERT_FALSE(refwire::deserialize<pbf>(refwire::serialize<pbf>(o), back));
  EXPECT_EQ(back.id, 150U);
  EXPECT_EQ(back.customer, "ann");
  EXPECT_EQ(back.qty, -2);
  EXPECT_EQ(back.note, "hi");
  EXPECT_EQ(back.legacy, "kept");
}

TEST(protobuf_numbering, old_bytes_keep_their_fields_and_the_removed_number_is_unknown) {
  const shop::order_v1 v1{7, "bo", 3, 999};
  const std::vector<std::byte> old = refwire::serialize<pbf>(v1);
  EXPECT_EQ(hex(old), "08 07 12 02 62 6f 18 06 20 e7 07");  // price is field 4
  const shop::order o = refwire::deserialize<shop::order, pbf>(old);
  EXPECT_EQ(o, (shop::order{7, "bo", 3, "", ""}));  // reserved 4 is skipped as unknown

  shop::order strict;
  const refwire::error e = refwire::deserialize<pbf>(old, strict, {.reject_unknown_fields = true});
  EXPECT_EQ(e.code(), refwire::errc::unknown_field);
  EXPECT_EQ(e.message(),
            "$: unknown field 4 (wire type 0, varint) and decode_options::reject_unknown_fields is set, at offset 8");
}

TEST(protobuf_numbering, reserved_number_of_a_skipped_field_is_unknown_on_the_wire) {
  // field 5 (legacy, skipped) and field 6 (reserved) as strings, then note = "n"
  const auto in = bytes_of({0x2a, 0x01, 0x78, 0x32, 0x01, 0x79, 0x3a, 0x01, 0x6e});
  shop::order o;
  ASSERT_FALSE(refwire::deserialize<pbf>(in, o));
  EXPECT_EQ(o.note, "n");
  EXPECT_EQ(o.legacy, "");
  const refwire::error e = refwire::deserialize<pbf>(in, o, {.reject_unknown_fields = true});
  EXPECT_EQ(e.code(), refwire::errc::unknown_field);
  EXPECT_EQ(e.message(),
            "$: unknown field 5 (wire type 2, length-delimited) and decode_options::reject_unknown_fields is set, at "
            "offset 0");
}

TEST(protobuf_numbering, positional_numbers_with_a_reserved_one_and_explicit_skips_reserve_nothing) {
  EXPECT_EQ(hex(refwire::serialize<pbf>(shop::sparse{1, 2})), "08 01 10 02");
  const std::string s = refwire::proto_schema<shop::sparse>();
  EXPECT_NE(s.find("  int32 a = 1;\n  int32 b = 2;\n  reserved 9;\n}\n"), std::string::npos) << s;
  const std::string c = refwire::proto_schema<shop::cached>();
  EXPECT_NE(c.find("  int32 a = 1;\n  int32 b = 2;\n}\n"), std::string::npos) << c;
  EXPECT_EQ(c.find("reserved"), std::string::npos) << c;
}

TEST(protobuf_numbering, golden_schema_with_reserved_numbers_and_names) {
  const std::string s = refwire::proto_schema<shop::order>("shop");
  const std::filesystem::path path = std::filesystem::path(REFWIRE_GOLDEN_DIR) / "protobuf" / "order.proto";
  if (std::getenv("REFWIRE_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << s;
  }
  std::ifstream f(path, std::ios::binary);
  const std::string golden((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(golden.empty()) << path << " is missing";
  EXPECT_EQ(s, golden);
  EXPECT_EQ(s,
            "syntax = \"proto3\";\n\npackage shop;\n\n"
            "message Order {\n"
            "  uint64 id = 1;\n"
            "  string customer = 2;\n"
            "  sint32 qty = 3;\n"
            "  string note = 7;\n"
            "  reserved 4, 5, 6;\n"
            "  reserved \"price\", \"discount\";\n"
            "}\n");
}

TEST(protobuf_numbering, protobuf_parser_accepts_the_reserved_statements) {
  const std::string text = refwire::proto_schema<shop::order>("shop");
  google::protobuf::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  collect_errors errors;
  google::protobuf::io::Tokenizer tokenizer(&input, &errors);
  google::protobuf::FileDescriptorProto file;
  google::protobuf::compiler::Parser parser;
  parser.RecordErrorsTo(&errors);
  ASSERT_TRUE(parser.Parse(&tokenizer, &file)) << errors.errors << text;
  file.set_name("order.proto");
  google::protobuf::DescriptorPool pool;
  pool_errors perrors;
  const google::protobuf::FileDescriptor* fd = pool.BuildFileCollectingErrors(file, &perrors);
  ASSERT_NE(fd, nullptr) << perrors.errors << text;
  const google::protobuf::Descriptor* m = fd->FindMessageTypeByName("Order");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->FindFieldByNumber(7)->name(), "note");
  EXPECT_EQ(m->FindFieldByNumber(3)->type(), google::protobuf::FieldDescriptor::TYPE_SINT32);
  EXPECT_EQ(m->reserved_range_count(), 3);
  EXPECT_TRUE(m->IsReservedNumber(4));
  EXPECT_TRUE(m->IsReservedNumber(5));
  EXPECT_TRUE(m->IsReservedNumber(6));
  EXPECT_TRUE(m->IsReservedName("price"));
  EXPECT_TRUE(m->IsReservedName("discount"));
}
