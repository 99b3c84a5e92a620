// The standard types users reach for (std::shared_ptr, the multi containers,
// std::bitset, std::filesystem::path, std::u8string, protobuf maps keyed by
// enums and uuids), beyond what the conformance suite checks in every format:
// their canonical names, their golden encodings in each format, and the
// protobuf schema and bytes checked by protobuf's own library
// (libprotoc's parser, DynamicMessage).
//
//   REFWIRE_UPDATE_GOLDEN=1 ./std_types_test    rewrites the golden files
#include <refwire/serialization.hpp>

#include <gtest/gtest.h>

#include <google/protobuf/compiler/parser.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>
#include <google/protobuf/unknown_field_set.h>

#include <bitset>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../common/field_eq.hpp"
#include "../common/types.hpp"
#include "../common/values.hpp"

using namespace shapes;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using testing_support::expect_fields_eq;

namespace {

// ------------------------------------------------------------ canonical names

TEST(std_types, canonical_names) {
  EXPECT_EQ(refwire::type_name<std::shared_ptr<bare_point>>(), "shared_ptr<{i32 x;f64 y;string name}>");
  EXPECT_EQ(refwire::type_name<std::unique_ptr<bare_point>>(), "ptr<{i32 x;f64 y;string name}>");
  EXPECT_EQ((refwire::type_name<std::multimap<std::string, std::int32_t>>()), "multimap<string,i32>");
  EXPECT_EQ((refwire::type_name<std::unordered_multimap<std::string, std::int32_t>>()), "multimap<string,i32>");
  EXPECT_EQ(refwire::type_name<std::multiset<std::int8_t>>(), "multiset<i8>");
  EXPECT_EQ(refwire::type_name<std::unordered_multiset<std::int8_t>>(), "multiset<i8>");
  EXPECT_EQ(refwire::type_name<std::set<std::int8_t>>(), "set<i8>");  // unchanged
  EXPECT_EQ(refwire::type_name<std::bitset<12>>(), "bitset<12>");
  EXPECT_EQ(refwire::type_name<std::filesystem::path>(), "path");
  EXPECT_EQ(refwire::type_name<std::u8string>(), "u8string");
  EXPECT_EQ(refwire::type_name<std_types>(),
            "{shared_ptr<{i16 a;string s}> sp;shared_ptr<i32> sp_null;multimap<string,i32> mm;multiset<i32> ms;"
            "multiset<string> mss;bitset<12> bits12;bitset<8> bits8;bitset<70> bits70;path file;u8string u8;"
            "map<enum:i32{low=0,mid=1,high=7},i32> by_rank;map<enum:u8,string> by_small;map<uuid,string> by_id;"
            "multimap<{i16 a;string s},i32> mm_inner;vector<shared_ptr<{i16 a;string s}>> sps;"
            "map<path,i32> by_path}");
  // The fingerprint is the hash of the name, so it is the same on every compiler.
  EXPECT_EQ(refwire::fingerprint<std_types>(), refwire::detail::fnv1a(refwire::type_name<std_types>()));
}

TEST(std_types, serializable_or_not) {
  static_assert(refwire::serializable<std::shared_ptr<inner>>);
  static_assert(refwire::serializable<std_types>);
  static_assert(refwire::serializable<shared_chain>);
  static_assert(!refwire::serializable<std::weak_ptr<inner>>);
  static_assert(!refwire::serializable<std::shared_ptr<const inner>>);
  static_assert(!refwire::serializable<std::vector<std::weak_ptr<int>>>);
  static_assert(refwire::can_carry<std_types, refwire::json>);
  static_assert(refwire::can_carry<std_types, refwire::protobuf>);
  static_assert(refwire::can_carry<std::map<refwire::uuid, std::multimap<rank, std::bitset<3>>>, refwire::protobuf>);
  static_assert(!refwire::can_carry<std::weak_ptr<int>, refwire::binary>);
  static_assert(!refwire::can_carry<std::shared_ptr<const int>, refwire::json>);
  static_assert(refwire::detail::kind_of<std::weak_ptr<int>>() == refwire::detail::unserializable_kind::weak_pointer);
  static_assert(refwire::detail::kind_of<std::shared_ptr<const int>>() ==
                refwire::detail::unserializable_kind::shared_const);
  static_assert(std::is_same_v<refwire::detail::first_bad_leaf_t<std::map<int, std::weak_ptr<int>>, false>,
                               std::weak_ptr<int>>);
  SUCCEED();
}

// ------------------------------------------------------------ golden files

bool updating() {
  const char* v = std::getenv("REFWIRE_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

std::vector<std::byte> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

std::string hex(const std::vector<std::byte>& b) {
  std::string s;
  char buf[4];
  for (std::byte x : b) {
    std::snprintf(buf, sizeof buf, "%02x", std::to_integer<unsigned>(x));
    s += buf;
  }
  return s;
}

/// Compares bytes with the golden file (or rewrites it under REFWIRE_UPDATE_GOLDEN=1); returns the file.
std::vector<std::byte> check_golden(const std::string& name, const std::vector<std::byte>& bytes) {
  const auto path = std::filesystem::path(REFWIRE_GOLDEN_DIR) / name;
  if (updating()) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    EXPECT_TRUE(out.good()) << "could not write " << path;
  }
  std::vector<std::byte> file = read_file(path);
  EXPECT_FALSE(file.empty()) << "missing golden file " << path << " (run with REFWIRE_UPDATE_GOLDEN=1)";
  EXPECT_EQ(hex(bytes), hex(file)) << "encoding of " << name << " differs from " << path;
  return file;
}

template <class F>
void golden_round_trip(const std::string& name) {
  const std_types v = full_std_types();
  const std::vector<std::byte> file = check_golden(name, refwire::serialize<F>(v));
  std_types back;
  const refwire::error e = refwire::deserialize<F>(file, back);
  ASSERT_FALSE(e) << e.message();
  expect_fields_eq(back, v);
}

TEST(std_types, golden_binary) { golden_round_trip<refwire::binary>("std_types.bin"); }
TEST(std_types, golden_json) { golden_round_trip<refwire::json>("json/std_types.json"); }
TEST(std_types, golden_protobuf) { golden_round_trip<refwire::protobuf>("protobuf/std_types.pb"); }
TEST(std_types, golden_proto_schema) {
  const std::string text = refwire::proto_schema<std_types>("refwire.test");
  const auto span = refwire::detail::as_bytes(text);
  (void)check_golden("protobuf/std_types.proto", std::vector<std::byte>(span.begin(), span.end()));
}

TEST(std_types, binary_layout) {
  // shared_ptr like unique_ptr: a tag, then the pointee; a multimap like a map, every entry.
  EXPECT_EQ(hex(refwire::serialize(std::make_shared<std::int16_t>(7))), "010700");
  EXPECT_EQ(hex(refwire::serialize(std::shared_ptr<std::int16_t>())), "00");
  EXPECT_EQ(hex(refwire::serialize(std::multimap<std::uint8_t, std::uint8_t>{{1, 2}, {1, 3}})), "0201020103");
  EXPECT_EQ(hex(refwire::serialize(std::multiset<std::uint8_t>{5, 5})), "020505");
  // bitset: ceil(N/8) bytes, bit 0 is the lowest bit of byte 0.
  EXPECT_EQ(hex(refwire::serialize(std::bitset<12>(0x801))), "0108");
  EXPECT_EQ(hex(refwire::serialize(std::bitset<16>(0xa55a))), "5aa5");
  EXPECT_EQ(hex(refwire::serialize(std::bitset<0>())), "");
  // path and u8string like std::string: a varint length, then the UTF-8 bytes.
  EXPECT_EQ(hex(refwire::serialize(std::filesystem::path("a/b"))), "03612f62");
  EXPECT_EQ(hex(refwire::serialize(std::u8string(u8"\u00e9"))), "02c3a9");
}

TEST(std_types, paths_have_one_binary_encoding) {
  // A path is written in its generic form, so "a//b" is written "a/b"; binary
  // (one value, one encoding) rejects the other spelling, JSON and protobuf take it.
  const std::filesystem::path loose("a//b");
  EXPECT_EQ(hex(refwire::serialize(loose)), "03612f62");
  std::filesystem::path p;
  const std::vector<std::byte> text = refwire::serialize(std::string("a//b"));
  const refwire::error e = refwire::deserialize<refwire::binary>(text, p);
  EXPECT_EQ(e.message(), "$: path \"a//b\" is not in its generic form \"a/b\", at offset 0");
  EXPECT_EQ(e.code(), refwire::errc::invalid_value);
  ASSERT_FALSE(refwire::deserialize<refwire::json>(std::string_view(R"("a//b")"), p));
  EXPECT_EQ(p, std::filesystem::path("a/b"));
  const std::string pb = "\x0a\x04" "a//b";
  ASSERT_FALSE(refwire::deserialize<refwire::protobuf>(refwire::detail::as_bytes(pb), p));
  EXPECT_EQ(p, std::filesystem::path("a/b"));
}

TEST(std_types, json_text) {
  EXPECT_EQ(refwire::to_json(std::multimap<std::string, int>{{"k", 1}, {"k", 2}}), R"([["k",1],["k",2]])");
  EXPECT_EQ(refwire::to_json(std::multiset<int>{2, 2}), "[2,2]");
  EXPECT_EQ(refwire::to_json(std::bitset<4>(0x3)), R"("0011")");
  EXPECT_EQ(refwire::to_json(std::filesystem::path("/a/b")), R"("/a/b")");
  EXPECT_EQ(refwire::to_json(std::make_shared<int>(3)), "3");
  EXPECT_EQ(refwire::to_json(std::shared_ptr<int>()), "null");
  // A multimap is never an object: an object cannot hold a key twice.
  std::multimap<std::string, int> m;
  const refwire::error e = refwire::deserialize<refwire::json>(std::string_view(R"({"k":1})"), m);
  EXPECT_EQ(e.code(), refwire::errc::type_mismatch) << e.message();
}

// ------------------------------------------------------ protobuf's own library

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
  void AddError(const std::string& filename, const std::string& element_name, const Message*, ErrorLocation,
                const std::string& message) override {
    errors += filename + ": " + element_name + ": " + message + "\n";
  }
};

struct parsed_schema {
  std::unique_ptr<google::protobuf::DescriptorPool> pool;
  std::unique_ptr<google::protobuf::DynamicMessageFactory> factory;
  const google::protobuf::Descriptor* root = nullptr;
  std::string text;
};

template <class T>
parsed_schema parse_schema() {
  parsed_schema s;
  s.text = refwire::proto_schema<T>("refwire.test");
  google::protobuf::io::ArrayInputStream input(s.text.data(), static_cast<int>(s.text.size()));
  collect_errors errors;
  google::protobuf::io::Tokenizer tokenizer(&input, &errors);
  google::protobuf::FileDescriptorProto file;
  google::protobuf::compiler::Parser parser;
  parser.RecordErrorsTo(&errors);
  EXPECT_TRUE(parser.Parse(&tokenizer, &file)) << errors.errors << s.text;
  EXPECT_EQ(errors.errors, "") << s.text;
  file.set_name("refwire_std_types.proto");
  s.pool = std::make_unique<google::protobuf::DescriptorPool>(google::protobuf::DescriptorPool::generated_pool());
  pool_errors perrors;
  const google::protobuf::FileDescriptor* fd = s.pool->BuildFileCollectingErrors(file, &perrors);
  EXPECT_NE(fd, nullptr) << perrors.errors << s.text;
  if (fd != nullptr && fd->message_type_count() > 0) s.root = fd->message_type(0);
  s.factory = std::make_unique<google::protobuf::DynamicMessageFactory>(s.pool.get());
  return s;
}

std::string as_string(const std::vector<std::byte>& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

TEST(std_types, protobuf_schema_and_bytes_are_protobufs_own) {
  const parsed_schema s = parse_schema<std_types>();
  ASSERT_NE(s.root, nullptr) << s.text;
  const std_types v = full_std_types();
  const std::vector<std::byte> bytes = refwire::serialize<refwire::protobuf>(v);
  std::unique_ptr<Message> m(s.factory->GetPrototype(s.root)->New());
  ASSERT_TRUE(m->ParseFromString(as_string(bytes)));
  const Reflection* r = m->GetReflection();
  EXPECT_EQ(r->GetUnknownFields(*m).field_count(), 0);
  const auto field = [&](const char* name) {
    const FieldDescriptor* fd = s.root->FindFieldByName(name);
    EXPECT_NE(fd, nullptr) << name << "\n" << s.text;
    return fd;
  };
  // A multimap: a repeated entry message, every entry in order.
  const FieldDescriptor* mm = field("mm");
  ASSERT_TRUE(mm->is_repeated() && !mm->is_map());
  ASSERT_EQ(r->FieldSize(*m, mm), 4);
  const Message& e1 = r->GetRepeatedMessage(*m, mm, 1);
  EXPECT_EQ(e1.GetReflection()->GetString(e1, e1.GetDescriptor()->FindFieldByName("key")), "a");
  EXPECT_EQ(e1.GetReflection()->GetInt32(e1, e1.GetDescriptor()->FindFieldByName("value")), 2);  // a: 1, 2, 1
  EXPECT_EQ(r->FieldSize(*m, field("mm_inner")), 3);
  EXPECT_EQ(r->FieldSize(*m, field("ms")), 4);
  // Maps keyed by an enum (its integer) and a uuid (its canonical string).
  const FieldDescriptor* by_rank = field("by_rank");
  ASSERT_TRUE(by_rank->is_map());
  EXPECT_EQ(by_rank->message_type()->map_key()->type(), FieldDescriptor::TYPE_INT32);
  EXPECT_EQ(r->FieldSize(*m, by_rank), 3);
  const FieldDescriptor* by_small = field("by_small");
  EXPECT_EQ(by_small->message_type()->map_key()->type(), FieldDescriptor::TYPE_UINT32);
  const FieldDescriptor* by_id = field("by_id");
  ASSERT_TRUE(by_id->is_map());
  EXPECT_EQ(by_id->message_type()->map_key()->type(), FieldDescriptor::TYPE_STRING);
  std::set<std::string> ids;
  for (int i = 0; i < r->FieldSize(*m, by_id); ++i) {
    const Message& e = r->GetRepeatedMessage(*m, by_id, i);
    ids.insert(e.GetReflection()->GetString(e, e.GetDescriptor()->map_key()));
  }
  EXPECT_EQ(ids, (std::set<std::string>{"00000000-0000-0000-0000-000000000000", "123e4567-e89b-12d3-a456-426614174000"}));
  EXPECT_EQ(field("by_path")->message_type()->map_key()->type(), FieldDescriptor::TYPE_STRING);
  // bitset: bytes; path and u8string: strings.
  EXPECT_EQ(field("bits12")->type(), FieldDescriptor::TYPE_BYTES);
  EXPECT_EQ(r->GetString(*m, field("bits12")), std::string("\x01\x08", 2));
  EXPECT_EQ(field("file")->type(), FieldDescriptor::TYPE_STRING);
  EXPECT_EQ(r->GetString(*m, field("file")), v.file.generic_string());
  EXPECT_EQ(field("u8")->type(), FieldDescriptor::TYPE_STRING);
  // shared_ptr: a message field, present or not.
  EXPECT_TRUE(r->HasField(*m, field("sp")));
  EXPECT_FALSE(r->HasField(*m, field("sp_null")));
  // What protobuf writes (deterministically), refwire reads back field by field.
  std::string again;
  {
    google::protobuf::io::StringOutputStream out(&again);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    ASSERT_TRUE(m->SerializeToCodedStream(&coded));
  }
  std_types back;
  const refwire::error e = refwire::deserialize<refwire::protobuf>(refwire::detail::as_bytes(again), back);
  ASSERT_FALSE(e) << e.message();
  expect_fields_eq(back, v);
}

TEST(std_types, protobuf_uuid_keys_are_checked) {
  // map<uuid, i32> field 1: one entry {key "not-a-uuid", value 1}.
  const std::string key = "not-a-uuid";
  std::string entry = "\x0a" + std::string(1, static_cast<char>(key.size())) + key + "\x10\x01";
  std::string msg = "\x0a" + std::string(1, static_cast<char>(entry.size())) + entry;
  std::map<refwire::uuid, std::int32_t> m;
  const refwire::error e = refwire::deserialize<refwire::protobuf>(refwire::detail::as_bytes(msg), m);
  EXPECT_EQ(e.message(),
            "$: invalid uuid map key \"not-a-uuid\" (a uuid key is its canonical 36-character string), at offset 2");
  EXPECT_EQ(e.code(), refwire::errc::invalid_value);
}

TEST(std_types, protobuf_map_keys_in_the_schema) {
  using enum_keys = std::map<rank, std::string>;
  const parsed_schema s = parse_schema<enum_keys>();
  EXPECT_NE(s.text.find("map<int32, string> value = 1;"), std::string::npos) << s.text;
  const parsed_schema u = parse_schema<std::map<refwire::uuid, std::int32_t>>();
  EXPECT_NE(u.text.find("map<string, int32> value = 1;"), std::string::npos) << u.text;
  const parsed_schema mm = parse_schema<std::multimap<refwire::uuid, bare_point>>();
  EXPECT_NE(mm.text.find("  string key = 1;\n"), std::string::npos) << mm.text;
}


// ------------------------------------------------------ tuples of references

// A tuple of references (std::tie, std::forward_as_tuple) encodes, is named
// and is fingerprinted exactly as the tuple of the referred values: RPC
// encodes a caller's arguments this way without copying them.

using value_tuple = std::tuple<person, std::vector<point>, std::optional<std::string>, std::string, std::int32_t,
                               std::tuple<std::int32_t, std::string>, std::optional<bare_point>>;

struct reference_tuple_case {
  person who = full_person();
  std::vector<point> places{{1, 2.5, "a"}, {}, {-3, 0.125, "c"}};
  std::optional<std::string> note = "n\u00e9";
  std::string out = "out";
  std::int32_t n = -7;
  std::tuple<std::int32_t, std::string> pair{4, "four"};
  std::optional<bare_point> bare = bare_point{5, 6.5, "bare"};

  [[nodiscard]] auto refs() const { return std::forward_as_tuple(who, places, note, out, n, pair, bare); }
  [[nodiscard]] auto mixed() { return std::tie(who, places, note, out, n, pair, bare); }  // non-const references
  [[nodiscard]] value_tuple values() const { return {who, places, note, out, n, pair, bare}; }
};

TEST(std_types, reference_tuple_names_are_the_value_tuples) {
  using refs = std::tuple<const person&, const std::vector<point>&, std::string&, std::int32_t&&>;
  using values = std::tuple<person, std::vector<point>, std::string, std::int32_t>;
  static_assert(refwire::serializable<refs>);
  static_assert(refwire::can_carry<refs, refwire::json>);
  static_assert(refwire::can_carry<std::pair<const point&, bare_point&>, refwire::protobuf>);
  static_assert(!refwire::serializable<std::tuple<const std::int32_t>>);  // a const value is still not carried
  static_assert(!refwire::serializable<std::tuple<std::int32_t* const&>>);  // nor a reference to a pointer
  EXPECT_EQ(refwire::type_name<std::tuple<const std::int32_t&>>(), "tuple<i32>");
  EXPECT_EQ(refwire::type_name<refs>(), refwire::type_name<values>());
  EXPECT_EQ(refwire::fingerprint<refs>(), refwire::fingerprint<values>());
  EXPECT_EQ(refwire::layout_fingerprint<refs>(), refwire::layout_fingerprint<values>());
  EXPECT_EQ((refwire::type_name<std::pair<const point&, bare_point&>>()),
            (refwire::type_name<std::pair<point, bare_point>>()));
  EXPECT_EQ((refwire::proto_schema<std::tuple<const point&, const std::int32_t&>>("t")),
            (refwire::proto_schema<std::tuple<point, std::int32_t>>("t")));
}

template <class F>
void expect_reference_tuple_bytes(const refwire::encode_options& options) {
  reference_tuple_case c;
  const std::vector<std::byte> expected = refwire::serialize<F>(c.values(), options);
  EXPECT_EQ(hex(refwire::serialize<F>(c.refs(), options)), hex(expected));
  EXPECT_EQ(hex(refwire::serialize<F>(c.mixed(), options)), hex(expected));
  // Nested: a tuple of references inside a tuple of references, and a pair.
  const std::int32_t k = 11;
  EXPECT_EQ(hex(refwire::serialize<F>(std::forward_as_tuple(std::forward_as_tuple(k, c.out), c.places), options)),
            hex(refwire::serialize<F>(std::make_tuple(std::make_tuple(k, c.out), c.places), options)));
  EXPECT_EQ(hex(refwire::serialize<F>(std::pair<const point&, const std::string&>(c.places[0], c.out), options)),
            hex(refwire::serialize<F>(std::pair<point, std::string>(c.places[0], c.out), options)));
  // The values' tuple decodes them back.
  value_tuple back;
  refwire::decode_options d;
  d.compression = options.compression;
  const refwire::error e = refwire::deserialize<F>(refwire::serialize<F>(c.refs(), options), back, d);
  ASSERT_FALSE(e) << e.message();
  EXPECT_EQ(std::get<0>(back), c.who);
  EXPECT_EQ(std::get<1>(back), c.places);
  EXPECT_EQ(std::get<2>(back), c.note);
  EXPECT_EQ(std::get<3>(back), c.out);
  EXPECT_EQ(std::get<4>(back), c.n);
  EXPECT_EQ(std::get<5>(back), c.pair);
  ASSERT_TRUE(std::get<6>(back).has_value());
  expect_fields_eq(*std::get<6>(back), *c.bare);
}

TEST(std_types, reference_tuple_bytes_binary) { expect_reference_tuple_bytes<refwire::binary>({}); }
TEST(std_types, reference_tuple_bytes_json) { expect_reference_tuple_bytes<refwire::json>({}); }
TEST(std_types, reference_tuple_bytes_protobuf) { expect_reference_tuple_bytes<refwire::protobuf>({}); }
TEST(std_types, reference_tuple_bytes_compressed) {
  const refwire::encode_options lz4{.compression = refwire::compression::lz4, .compression_threshold = 0};
  expect_reference_tuple_bytes<refwire::binary>(lz4);
  expect_reference_tuple_bytes<refwire::json>(lz4);
  expect_reference_tuple_bytes<refwire::protobuf>(lz4);
}

TEST(std_types, reference_tuple_json_text_and_errors) {
  const std::string s = "s";
  const std::int32_t i = 3;
  EXPECT_EQ(refwire::to_json(std::forward_as_tuple(i, s)), R"([3,"s"])");
  // An encode failure names the element, as for the tuple of values.
  const std::string bad = "\xff";
  try {
    (void)refwire::serialize<refwire::protobuf>(std::forward_as_tuple(i, bad));
    ADD_FAILURE() << "invalid UTF-8 encoded";
  } catch (const refwire::encode_error& e) {
    EXPECT_EQ(e.path(), "$[1]");
    try {
      (void)refwire::serialize<refwire::protobuf>(std::make_tuple(i, bad));
      ADD_FAILURE() << "invalid UTF-8 encoded";
    } catch (const refwire::encode_error& v) {
      EXPECT_STREQ(e.what(), v.what());
    }
  }
}

}  // namespace
