// refwire against protoc-generated code for a hand-written schema
// (tests/serialization/protobuf/interop.proto): bytes written by the generated code
// decode into refwire structs, and refwire's bytes parse into the generated
// messages, field by field; with deterministic serialization the bytes are
// identical when refwire declares the fields in number order.
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <chrono>
#include <string>
#include <vector>

#include "../common/field_eq.hpp"
#include "interop.pb.h"
#include "../common/types.hpp"
#include "../common/values.hpp"

using namespace shapes;
using testing_support::expect_fields_eq;
namespace gen = refwire_interop;

namespace {

void fill(const point& p, gen::Point& m) {
  m.set_x(p.x);
  m.set_y(p.y);
  m.set_name(p.name);
}

void expect_point(const gen::Point& m, const point& p) {
  EXPECT_EQ(m.x(), p.x);
  EXPECT_EQ(m.y(), p.y);
  EXPECT_EQ(m.name(), p.name);
}

/// The generated message with the same content as full_person(), set by hand.
gen::Person generated_person() {
  const person p = full_person();
  gen::Person m;
  m.set_name(p.name);
  m.set_id(p.id);
  for (const auto& e : p.emails) m.add_emails(e);
  fill(p.home, *m.mutable_home());
  for (const auto& pl : p.places) fill(pl, *m.add_places());
  for (const auto& [k, v] : p.scores) (*m.mutable_scores())[k] = v;
  m.set_nickname(*p.nickname);
  m.set_lv(gen::LEVEL_HIGH);
  for (double w : p.weights) m.add_weights(w);
  m.set_avatar(std::string("\x00\xff", 2));
  m.mutable_born()->set_seconds(-2);  // -1.234567891 s
  m.mutable_born()->set_nanos(765'432'109);
  m.mutable_age()->set_seconds(-3);
  m.mutable_age()->set_nanos(-1);
  fill(std::get<point>(p.choice), *m.mutable_choice()->mutable_alt_2());
  m.set_active(true);
  m.set_big(p.big);
  m.set_ratio(p.ratio);
  for (const auto& [k, v] : p.by_id) fill(v, (*m.mutable_by_id())[k]);
  return m;
}

std::string deterministic(const google::protobuf::MessageLite& m) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    EXPECT_TRUE(m.SerializeToCodedStream(&coded));
  }
  return out;
}

std::string as_string(const std::vector<std::byte>& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

}  // namespace

TEST(protobuf_generated, generated_bytes_decode_into_refwire_structs) {
  const std::string bytes = generated_person().SerializeAsString();
  const person p = refwire::deserialize<person, refwire::protobuf>(std::string_view(bytes));
  expect_fields_eq(p, full_person());
}

TEST(protobuf_generated, refwire_bytes_parse_into_generated_messages) {
  const person p = full_person();
  const std::vector<std::byte> bytes = refwire::serialize<refwire::protobuf>(p);
  gen::Person m;
  ASSERT_TRUE(m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  EXPECT_TRUE(m.GetReflection()->GetUnknownFields(m).empty());
  EXPECT_EQ(m.name(), p.name);
  EXPECT_EQ(m.id(), p.id);
  ASSERT_EQ(m.emails_size(), 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(m.emails(i), p.emails[static_cast<std::size_t>(i)]);
  expect_point(m.home(), p.home);
  ASSERT_EQ(m.places_size(), 3);
  for (int i = 0; i < 3; ++i) expect_point(m.places(i), p.places[static_cast<std::size_t>(i)]);
  ASSERT_EQ(m.scores_size(), 3);
  for (const auto& [k, v] : p.scores) EXPECT_EQ(m.scores().at(k), v);
  EXPECT_TRUE(m.has_nickname());
  EXPECT_EQ(m.nickname(), "");
  EXPECT_EQ(m.lv(), gen::LEVEL_HIGH);
  ASSERT_EQ(m.weights_size(), 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(m.weights(i), p.weights[static_cast<std::size_t>(i)]);
  EXPECT_EQ(m.avatar(), std::string("\x00\xff", 2));
  EXPECT_EQ(m.born().seconds(), -2);
  EXPECT_EQ(m.born().nanos(), 765'432'109);
  EXPECT_EQ(m.age().seconds(), -3);
  EXPECT_EQ(m.age().nanos(), -1);
  ASSERT_TRUE(m.choice().has_alt_2());
  expect_point(m.choice().alt_2(), std::get<point>(p.choice));
  EXPECT_TRUE(m.active());
  EXPECT_EQ(m.big(), p.big);
  EXPECT_EQ(m.ratio(), p.ratio);
  ASSERT_EQ(m.by_id_size(), 2);
  for (const auto& [k, v] : p.by_id) expect_point(m.by_id().at(k), v);

  EXPECT_EQ(m.ByteSizeLong(), bytes.size());
  EXPECT_EQ(deterministic(m), as_string(bytes)) << "not the bytes protobuf writes";
}

TEST(protobuf_generated, explicit_numbers_and_encodings_both_ways) {
  const numbered n = full_numbered();
  const std::vector<std::byte> bytes = refwire::serialize<refwire::protobuf>(n);
  gen::Numbered m;
  ASSERT_TRUE(m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  EXPECT_TRUE(m.GetReflection()->GetUnknownFields(m).empty());
  EXPECT_EQ(m.a(), n.a);
  EXPECT_EQ(m.b(), n.b);
  EXPECT_EQ(m.c(), n.c);
  ASSERT_EQ(m.zz_size(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(m.zz(i), n.zz[static_cast<std::size_t>(i)]);
  ASSERT_EQ(m.fx_size(), 2);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(m.fx(i), n.fx[static_cast<std::size_t>(i)]);
  EXPECT_EQ(m.neg(), -1);
  EXPECT_EQ(m.lv(), gen::LEVEL_MID);
  ASSERT_EQ(m.zm_size(), 2);
  for (const auto& [k, v] : n.zm) EXPECT_EQ(m.zm().at(k), v);
  EXPECT_EQ(m.ByteSizeLong(), bytes.size());

  // generated code writes in number order (b, c, ..., a, zm); refwire reads any order
  const std::string back = m.SerializeAsString();
  expect_fields_eq(refwire::deserialize<numbered, refwire::protobuf>(std::string_view(back)), n);
}

TEST(protobuf_generated, proto3_defaults_and_unknown_enum_values) {
  gen::Person m;
  m.set_lv(static_cast<gen::Level>(77));  // proto3 enums are open
  const std::string bytes = m.SerializeAsString();
  const person p = refwire::deserialize<person, refwire::protobuf>(std::string_view(bytes));
  EXPECT_EQ(static_cast<int>(p.lv), 77);
  EXPECT_EQ(p.name, "");
  EXPECT_FALSE(p.nickname.has_value());
  EXPECT_EQ(p.born, refwire::timestamp{});

  // refwire writes a zero person as its always-present messages only
  gen::Person empty;
  const std::vector<std::byte> rw = refwire::serialize<refwire::protobuf>(person{});
  ASSERT_TRUE(empty.ParseFromArray(rw.data(), static_cast<int>(rw.size())));
  EXPECT_TRUE(empty.has_home());
  EXPECT_TRUE(empty.has_born());
  EXPECT_TRUE(empty.choice().has_alt_0());
  EXPECT_EQ(empty.choice().alt_0(), 0);
}
