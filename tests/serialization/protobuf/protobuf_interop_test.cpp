// Proof that refwire's protobuf bytes are real protobuf, checked by protobuf's
// own library:
//  1. proto_schema<T>() is parsed by libprotoc's .proto parser and built into a
//     DescriptorPool (the well-known types come from the generated pool);
//  2. refwire's bytes are parsed into a DynamicMessage with no unknown fields
//     left, and every field is compared with the C++ value via Reflection;
//  3. the DynamicMessage is serialized by protobuf (deterministically) and
//     decoded by refwire, field by field; for types whose fields are declared
//     in number order with ordered containers, the bytes are identical too.
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

#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../common/field_eq.hpp"
#include "../common/types.hpp"
#include "../common/values.hpp"

using namespace shapes;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
namespace pb = refwire::detail::pb;
using testing_support::expect_fields_eq;

namespace {

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

/// A schema parsed by protobuf's parser, its pool and the root message type.
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
  file.set_name("refwire_test.proto");
  s.pool = std::make_unique<google::protobuf::DescriptorPool>(google::protobuf::DescriptorPool::generated_pool());
  pool_errors perrors;
  const google::protobuf::FileDescriptor* fd = s.pool->BuildFileCollectingErrors(file, &perrors);
  EXPECT_NE(fd, nullptr) << perrors.errors << s.text;
  if (fd != nullptr && fd->message_type_count() > 0) s.root = fd->message_type(0);
  s.factory = std::make_unique<google::protobuf::DynamicMessageFactory>(s.pool.get());
  return s;
}

void expect_no_unknown_fields(const Message& m, const std::string& path) {
  const Reflection* r = m.GetReflection();
  EXPECT_EQ(r->GetUnknownFields(m).field_count(), 0) << path << " has unknown fields";
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  for (const FieldDescriptor* fd : fields) {
    if (fd->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (fd->is_repeated()) {
      for (int i = 0; i < r->FieldSize(m, fd); ++i)
        expect_no_unknown_fields(r->GetRepeatedMessage(m, fd, i), path + "." + fd->name() + "[]");
    } else {
      expect_no_unknown_fields(r->GetMessage(m, fd), path + "." + fd->name());
    }
  }
}

// ------------------------------------------------- field-by-field comparison

template <class T>
void check_message(const Message& m, const T& v, const std::string& path);
template <refwire::int_encoding E, class T>
void check_field(const Message& m, const FieldDescriptor* fd, const T& v, const std::string& path);

template <class B>
std::uint64_t float_bits(B b) {
  if constexpr (sizeof(B) == 4) return std::bit_cast<std::uint32_t>(b);
  else return std::bit_cast<std::uint64_t>(b);
}

/// One value of field fd (index < 0: the singular field; else a repeated element).
template <refwire::int_encoding E, class T>
void check_value(const Message& m, const FieldDescriptor* fd, int index, const T& v, const std::string& path) {
  const Reflection* r = m.GetReflection();
  constexpr pb::cat c = pb::category<T>();
  const bool rep = index >= 0;
  if constexpr (c == pb::cat::codec) {
    check_value<E>(m, fd, index, refwire::codec<T>::to_wire(v), path);
  } else if constexpr (c == pb::cat::scalar) {
    using B = pb::scalar_base_t<T>;
    const B b = static_cast<B>(v);
    switch (fd->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        EXPECT_EQ(rep ? r->GetRepeatedInt32(m, fd, index) : r->GetInt32(m, fd), static_cast<std::int32_t>(b)) << path;
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        EXPECT_EQ(rep ? r->GetRepeatedInt64(m, fd, index) : r->GetInt64(m, fd), static_cast<std::int64_t>(b)) << path;
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        EXPECT_EQ(rep ? r->GetRepeatedUInt32(m, fd, index) : r->GetUInt32(m, fd), static_cast<std::uint32_t>(b))
            << path;
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        EXPECT_EQ(rep ? r->GetRepeatedUInt64(m, fd, index) : r->GetUInt64(m, fd), static_cast<std::uint64_t>(b))
            << path;
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        EXPECT_EQ(rep ? r->GetRepeatedBool(m, fd, index) : r->GetBool(m, fd), static_cast<bool>(b)) << path;
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        EXPECT_EQ(rep ? r->GetRepeatedEnumValue(m, fd, index) : r->GetEnumValue(m, fd), static_cast<int>(b)) << path;
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        if constexpr (std::is_same_v<B, float>) {
          EXPECT_EQ(float_bits(rep ? r->GetRepeatedFloat(m, fd, index) : r->GetFloat(m, fd)), float_bits(b)) << path;
        } else {
          ADD_FAILURE() << path << ": float field for a non-float";
        }
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        if constexpr (std::is_same_v<B, double>) {
          EXPECT_EQ(float_bits(rep ? r->GetRepeatedDouble(m, fd, index) : r->GetDouble(m, fd)), float_bits(b)) << path;
        } else {
          ADD_FAILURE() << path << ": double field for a non-double";
        }
        break;
      default:
        ADD_FAILURE() << path << ": unexpected field type " << fd->type_name();
    }
  } else if constexpr (c == pb::cat::string || c == pb::cat::blob || c == pb::cat::uuid) {
    EXPECT_EQ(fd->type(), c == pb::cat::string ? FieldDescriptor::TYPE_STRING : FieldDescriptor::TYPE_BYTES) << path;
    const std::string got = rep ? r->GetRepeatedString(m, fd, index) : r->GetString(m, fd);
    std::string want;
    if constexpr (c == pb::cat::string) {
      want = v;
    } else if constexpr (c == pb::cat::blob) {
      want.assign(reinterpret_cast<const char*>(v.data()), v.size());
    } else {
      if (rep || !v.is_nil()) want.assign(reinterpret_cast<const char*>(v.bytes.data()), 16);
    }
    EXPECT_EQ(got, want) << path;
  } else {
    ASSERT_EQ(fd->cpp_type(), FieldDescriptor::CPPTYPE_MESSAGE) << path;
    if (!rep) {
      EXPECT_TRUE(r->HasField(m, fd)) << path << ": a message field must be present";
    }
    const Message& sub = rep ? r->GetRepeatedMessage(m, fd, index) : r->GetMessage(m, fd);
    if constexpr (c == pb::cat::message) {
      check_message(sub, v, path);
    } else {  // a wrapper message: the value is its field 1
      const FieldDescriptor* f1 = sub.GetDescriptor()->FindFieldByNumber(1);
      ASSERT_NE(f1, nullptr) << path;
      check_field<E>(sub, f1, v, path + ".value");
    }
  }
}

template <class K>
K entry_key(const Message& entry, const FieldDescriptor* kfd) {
  const Reflection* r = entry.GetReflection();
  if constexpr (std::is_same_v<K, std::string>) {
    return r->GetString(entry, kfd);
  } else {
    switch (kfd->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32: return static_cast<K>(r->GetInt32(entry, kfd));
      case FieldDescriptor::CPPTYPE_INT64: return static_cast<K>(r->GetInt64(entry, kfd));
      case FieldDescriptor::CPPTYPE_UINT32: return static_cast<K>(r->GetUInt32(entry, kfd));
      case FieldDescriptor::CPPTYPE_UINT64: return static_cast<K>(r->GetUInt64(entry, kfd));
      case FieldDescriptor::CPPTYPE_BOOL: return static_cast<K>(r->GetBool(entry, kfd));
      default: ADD_FAILURE() << "bad map key type"; return K{};
    }
  }
}

template <refwire::int_encoding E, class T>
void check_field(const Message& m, const FieldDescriptor* fd, const T& v, const std::string& path) {
  const Reflection* r = m.GetReflection();
  constexpr pb::cat c = pb::category<T>();
  if constexpr (c == pb::cat::codec) {
    check_field<E>(m, fd, refwire::codec<T>::to_wire(v), path);
  } else if constexpr (pb::singular<T>()) {
    EXPECT_FALSE(fd->is_repeated()) << path;
    check_value<E>(m, fd, -1, v, path);
  } else if constexpr (c == pb::cat::optional) {
    EXPECT_TRUE(fd->has_presence()) << path;
    ASSERT_EQ(r->HasField(m, fd), static_cast<bool>(v)) << path << ": presence";
    if (v) check_value<E>(m, fd, -1, *v, path);
  } else if constexpr (c == pb::cat::repeated) {
    ASSERT_TRUE(fd->is_repeated()) << path;
    ASSERT_EQ(static_cast<std::size_t>(r->FieldSize(m, fd)), pb::container_size(v)) << path << ": size";
    int i = 0;
    for (const auto& e : v) {
      using El = pb::repeated_elem_t<T>;
      check_value<E>(m, fd, i, static_cast<const El&>(e), path + "[" + std::to_string(i) + "]");
      ++i;
    }
  } else {
    ASSERT_TRUE(fd->is_map()) << path;
    ASSERT_EQ(static_cast<std::size_t>(r->FieldSize(m, fd)), v.size()) << path << ": size";
    for (int i = 0; i < r->FieldSize(m, fd); ++i) {
      const Message& entry = r->GetRepeatedMessage(m, fd, i);
      const FieldDescriptor* kfd = entry.GetDescriptor()->FindFieldByNumber(1);
      const FieldDescriptor* vfd = entry.GetDescriptor()->FindFieldByNumber(2);
      const auto key = entry_key<typename T::key_type>(entry, kfd);
      const auto it = v.find(key);
      ASSERT_NE(it, v.end()) << path << ": entry " << i << " has a key the map lacks";
      check_value<E>(entry, vfd, -1, it->second, path + "[entry " + std::to_string(i) + "]");
    }
  }
}

template <class T>
void check_message(const Message& m, const T& v, const std::string& path) {
  const google::protobuf::Descriptor* d = m.GetDescriptor();
  const Reflection* r = m.GetReflection();
  if constexpr (refwire::detail::is_timestamp<T>::value || refwire::detail::is_duration<T>::value) {
    const pb::seconds_nanos sn = pb::split_time(v);
    EXPECT_EQ(r->GetInt64(m, d->FindFieldByNumber(1)), sn.seconds) << path << ".seconds";
    EXPECT_EQ(r->GetInt32(m, d->FindFieldByNumber(2)), sn.nanos) << path << ".nanos";
  } else if constexpr (refwire::detail::is_variant<T>::value) {
    ASSERT_EQ(d->oneof_decl_count(), 1) << path;
    const FieldDescriptor* set = r->GetOneofFieldDescriptor(m, d->oneof_decl(0));
    ASSERT_NE(set, nullptr) << path << ": no oneof alternative set";
    EXPECT_EQ(set->number(), static_cast<int>(v.index()) + 1) << path;
    std::visit([&](const auto& alt) { check_value<refwire::int_encoding::varint>(m, set, -1, alt, path); }, v);
  } else if constexpr (refwire::detail::is_tuple<T>::value) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (check_field<refwire::int_encoding::varint>(m, d->FindFieldByNumber(static_cast<int>(I + 1)), std::get<I>(v),
                                                  path + ".item_" + std::to_string(I + 1)),
       ...);
    }(std::make_index_sequence<std::tuple_size_v<T>>{});
  } else {
    refwire::for_each_field(v, [&](auto field, const auto& member) {
      using F = decltype(field);
      const FieldDescriptor* fd = d->FindFieldByNumber(static_cast<int>(pb::number_of<F>()));
      ASSERT_NE(fd, nullptr) << path << ": no field " << pb::number_of<F>();
      const std::string name = F::name.empty() ? "field_" + std::to_string(pb::number_of<F>()) : std::string(F::name);
      EXPECT_EQ(fd->name(), name) << path;
      check_field<F::attr.encoding>(m, fd, member, path + "." + name);
    });
  }
}

std::string as_string(const std::vector<std::byte>& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

std::string serialize_deterministic(const Message& m) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    EXPECT_TRUE(m.SerializeToCodedStream(&coded));
  }
  return out;
}

/// The whole check for one value; same_bytes: protobuf's re-serialization is
/// byte-identical to refwire's (fields declared in number order, ordered containers).
template <class T>
void interop(const T& v, bool same_bytes) {
  const parsed_schema s = parse_schema<T>();
  ASSERT_NE(s.root, nullptr) << s.text;
  const std::vector<std::byte> bytes = refwire::serialize<refwire::protobuf>(v);
  std::unique_ptr<Message> m(s.factory->GetPrototype(s.root)->New());
  ASSERT_TRUE(m->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) << s.text;
  expect_no_unknown_fields(*m, "$");
  if constexpr (pb::category<T>() == pb::cat::message && !refwire::detail::is_timestamp<T>::value &&
                !refwire::detail::is_duration<T>::value) {
    check_message(*m, v, "$");
  } else {
    check_field<refwire::int_encoding::varint>(*m, s.root->FindFieldByNumber(1), v, "$");
  }
  EXPECT_EQ(m->ByteSizeLong(), bytes.size()) << "protobuf computes another size";

  const std::string back = serialize_deterministic(*m);
  if (same_bytes) {
    EXPECT_EQ(back, as_string(bytes)) << "protobuf re-serializes other bytes";
  }
  const T decoded = refwire::deserialize<T, refwire::protobuf>(std::string_view(back));
  if constexpr (refwire::record<T>) {
    expect_fields_eq(decoded, v);
  } else {
    EXPECT_TRUE(testing_support::same_value(decoded, v));
  }
}

}  // namespace

TEST(protobuf_interop, person) {
  interop(full_person(), true);
  interop(person{}, true);
}

TEST(protobuf_interop, explicit_numbers_and_encodings) {
  interop(full_numbered(), false);  // declaration order is not number order
  interop(numbered{}, true);
}

TEST(protobuf_interop, scalars) {
  interop(max_scalars(), true);
  interop(scalars{}, true);
}

TEST(protobuf_interop, containers) {
  containers c = full_containers();
  interop(c, false);  // unordered_map / unordered_set iterate in their own order
  c.um.clear();
  c.ust.clear();
  interop(c, true);
  interop(containers{}, true);
}

TEST(protobuf_interop, wrappers_variants_tuples_time) {
  interop(full_wrappers(), true);
  interop(wrappers{}, true);
  wrappers w = full_wrappers();
  w.var = std::string("alt");
  w.var2 = std::monostate{};
  w.oi.reset();
  w.ptr.reset();
  interop(w, true);
}

TEST(protobuf_interop, inheritance_aggregates_recursion_top_level_values) {
  derived d;
  d.id = 3;
  d.tag = "t";
  d.value = 0.5;
  interop(d, true);
  interop(plain{1, "b", {1.5}, {2, "d"}}, true);
  node n;
  n.value = 1;
  n.kids.resize(2);
  n.kids[0].value = -1;
  n.next = std::make_unique<node>();
  n.next->value = 5;
  interop(n, true);
  interop(std::vector<double>{1, 2, 3}, true);
  interop(std::vector<std::string>{"a", "", "c"}, true);
  interop(std::map<std::string, std::vector<std::int32_t>>{{"a", {1, 2}}, {"b", {}}}, true);
  interop(std::vector<std::optional<std::int32_t>>{1, std::nullopt, 0}, true);
  interop(refwire::timestamp(std::chrono::seconds(5)), true);
}

TEST(protobuf_interop, schema_text_of_person_parses) {
  const parsed_schema s = parse_schema<person>();
  ASSERT_NE(s.root, nullptr);
  EXPECT_EQ(s.root->full_name(), "refwire.test.Person");
  EXPECT_EQ(s.root->FindFieldByName("choice")->message_type()->oneof_decl_count(), 1);
  EXPECT_TRUE(s.root->FindFieldByName("nickname")->has_presence());
  EXPECT_EQ(s.root->FindFieldByName("born")->message_type()->full_name(), "google.protobuf.Timestamp");
}
