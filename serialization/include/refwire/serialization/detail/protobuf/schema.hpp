#pragma once
// .proto emission for the protobuf format: the classification the encoder
// and decoder use (classify.hpp), spelled as proto3 text. Machinery for
// protobuf.hpp; the text helpers are compiled once in src/protobuf/schema.cpp.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <boost/describe/enumerators.hpp>
#include <boost/mp11/algorithm.hpp>

#include <refwire/serialization/detail/protobuf/classify.hpp>
#include <refwire/serialization/reflect.hpp>

namespace refwire::detail::pb {

/// The definitions one proto_schema call collects, in order of first use.
struct schema_builder {
  std::vector<std::string> blocks;
  std::map<std::string, const void*, std::less<>> names;  // defined (or being defined) name -> type key
  bool timestamp = false;
  bool duration = false;
};

// Out-of-line helpers (src/protobuf/schema.cpp).
/// prefix + 16 lower-case hex digits of fnv1a(canonical).
std::string hashed_name(std::string_view prefix, std::string_view canonical);
/// "OrderStatus" -> "ORDER_STATUS", "red" -> "RED".
std::string upper_snake(std::string_view name);
/// Reserves name for the type with the given key: true when the caller must
/// define it now; false when it is defined (or being defined) already. Two
/// different types given one name with REFWIRE_NAME throw std::invalid_argument.
bool claim_name(schema_builder& b, const std::string& name, const void* key, bool user_named);
/// The `reserved` statements of a message: the numbers sorted, duplicates
/// dropped ("  reserved 3, 4, 7;\n"), then the names ("  reserved \"old\";\n");
/// empty when there are none.
std::string reserved_lines(std::vector<std::uint32_t> numbers, const std::string_view* names_begin,
                           const std::string_view* names_end);
/// The whole file: syntax, package, imports, then the blocks.
std::string render_schema(const schema_builder& b, std::string_view package);

/// A distinct address for each type a schema defines (claim_name's key).
template <class T>
inline constexpr char schema_key = 0;

/// The key type of X's wrapper message under encoding E.
template <class X, int_encoding E>
struct wrapped;

inline constexpr std::string_view encoding_suffix(int_encoding e) {
  return e == int_encoding::zigzag ? "_zigzag" : e == int_encoding::fixed ? "_fixed" : "";
}

/// The message or enum name of a record, tuple, variant or enum: its
/// REFWIRE_NAME, else a prefix and a hash of refwire's canonical spelling
/// (type_name<T>()), identical on every compiler.
template <class T>
std::string schema_name() {
  if constexpr (has_type_name<T>) {
    return std::string(refwire_type_name(static_cast<T**>(nullptr)));
  } else if constexpr (std::is_enum_v<T>) {
    return hashed_name("Enum_", type_name<T>());
  } else if constexpr (is_variant<T>::value) {
    return hashed_name("Variant_", type_name<T>());
  } else if constexpr (is_tuple<T>::value) {
    return hashed_name("Tuple_", type_name<T>());
  } else {
    return hashed_name("Message_", type_name<T>());
  }
}

/// A described enum whose values all fit in int32 becomes a proto enum.
template <class T>
constexpr bool proto_enum() {
  if constexpr (!std::is_enum_v<T>) {
    return false;
  } else if constexpr (!boost::describe::has_describe_enumerators<T>::value || is_bool_v<std::underlying_type_t<T>> ||
                       sizeof(T) > 4) {
    return false;
  } else {
    bool ok = true;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<T>>([&](auto e) {
      const auto v = static_cast<long long>(e.value);
      ok = ok && v >= -2147483648LL && v <= 2147483647LL;
    });
    return ok;
  }
}

template <class T>
std::string define_enum(schema_builder& b) {
  const std::string name = schema_name<T>();
  if (!claim_name(b, name, &schema_key<T>, has_type_name<T>)) return name;
  const std::string prefix = upper_snake(name) + "_";
  std::vector<std::pair<std::string, long long>> values;
  boost::mp11::mp_for_each<boost::describe::describe_enumerators<T>>([&](auto e) {
    values.emplace_back(prefix + upper_snake(e.name), static_cast<long long>(e.value));
  });
  bool has_zero = false;
  bool alias = false;
  for (std::size_t i = 0; i < values.size(); ++i) {
    has_zero = has_zero || values[i].second == 0;
    for (std::size_t j = 0; j < i; ++j) alias = alias || values[i].second == values[j].second;
  }
  std::string s = "enum " + name + " {\n";
  if (alias) s += "  option allow_alias = true;\n";
  if (!has_zero) s += "  " + prefix + "UNSPECIFIED = 0;  // proto3 needs a zero value; not a value of the C++ enum\n";
  for (const auto& [n, v] : values) {  // the zero value first, as proto3 requires
    if (v == 0) s += "  " + n + " = 0;\n";
  }
  for (const auto& [n, v] : values) {
    if (v != 0) s += "  " + n + " = " + std::to_string(v) + ";\n";
  }
  s += "}\n";
  b.blocks.push_back(std::move(s));
  return name;
}

template <int_encoding E, class T>
std::string scalar_type(schema_builder& b) {
  using B = scalar_base_t<T>;
  if constexpr (E == int_encoding::varint && proto_enum<T>()) {
    return define_enum<T>(b);
  } else if constexpr (is_bool_v<B>) {
    return "bool";
  } else if constexpr (is_float_v<B>) {
    return sizeof(B) == 4 ? "float" : "double";
  } else {
    using I = wire_int_t<B>;
    const std::string bits = sizeof(I) == 4 ? "32" : "64";
    if constexpr (E == int_encoding::zigzag) return "sint" + bits;
    else if constexpr (E == int_encoding::fixed) return (std::is_signed_v<I> ? "sfixed" : "fixed") + bits;
    else return (std::is_signed_v<I> ? "int" : "uint") + bits;
  }
}

template <class T> struct optional_value { using type = typename T::value_type; };
template <class T> struct optional_value<std::unique_ptr<T>> { using type = T; };
template <class T> struct optional_value<std::shared_ptr<T>> { using type = T; };

/// The key type of the entry message of a multimap under encoding E.
template <class X, int_encoding E>
struct multimap_entry;

template <class T> std::string define_message(schema_builder& b);
template <int_encoding E, class X> std::string define_wrapper(schema_builder& b);

/// The type of one value: a scalar, string, bytes or message; anything else
/// is its wrapper message.
template <int_encoding E, class T>
std::string value_type(schema_builder& b) {
  constexpr cat c = category<T>();
  if constexpr (c == cat::codec) {
    return value_type<E, typename codec<T>::wire>(b);
  } else if constexpr (c == cat::scalar) {
    return scalar_type<E, T>(b);
  } else if constexpr (c == cat::string || c == cat::text) {
    return "string";
  } else if constexpr (c == cat::blob || c == cat::uuid || c == cat::bits) {
    return "bytes";
  } else if constexpr (is_timestamp<T>::value) {
    b.timestamp = true;
    return "google.protobuf.Timestamp";
  } else if constexpr (is_duration<T>::value) {
    b.duration = true;
    return "google.protobuf.Duration";
  } else if constexpr (c == cat::message) {
    return define_message<T>(b);
  } else {
    return define_wrapper<E, T>(b);
  }
}

/// The type of a map key (field 1 of an entry) as put_key writes it: an enum
/// as its integer (protobuf's map keys cannot be enums), a uuid as a string
/// (nor bytes), anything else as its value type.
template <int_encoding E, class K>
std::string key_type(schema_builder& b) {
  if constexpr (std::is_enum_v<K>) {
    return scalar_type<E, std::underlying_type_t<K>>(b);
  } else if constexpr (is_uuid_v<K>) {
    return "string";
  } else {
    return value_type<E, K>(b);
  }
}

template <int_encoding E, class T> std::string define_multimap_entry(schema_builder& b);

/// The type of a field, with its label: `optional int32`, `repeated string`,
/// `map<string, Inner>`, `repeated Entry_...` for a multimap.
template <int_encoding E, class T>
std::string field_type(schema_builder& b) {
  constexpr cat c = category<T>();
  if constexpr (c == cat::codec) {
    return field_type<E, typename codec<T>::wire>(b);
  } else if constexpr (singular<T>()) {
    return value_type<E, T>(b);
  } else if constexpr (c == cat::optional) {
    using X = typename optional_value<T>::type;
    if constexpr (singular<X>() && category<X>() != cat::message) {
      return "optional " + value_type<E, X>(b);
    } else {
      return value_type<E, X>(b);  // a message has presence by itself; a wrapper is a message
    }
  } else if constexpr (c == cat::repeated) {
    return "repeated " + value_type<E, repeated_elem_t<T>>(b);
  } else if constexpr (is_multi_v<T>) {
    return "repeated " + define_multimap_entry<E, T>(b);  // a map cannot hold a key twice
  } else {
    using K = typename T::key_type;
    static_assert(map_key_ok<K>,
                  "refwire: protobuf map keys must be integers, bool, enums, strings or uuids (protobuf's rule); "
                  "use a vector of pairs (a repeated message) for other keys");
    std::string k = key_type<E, K>(b);
    std::string v = value_type<E, typename T::mapped_type>(b);
    return "map<" + k + ", " + v + ">";
  }
}

template <int_encoding E, class T>
std::string define_multimap_entry(schema_builder& b) {
  const std::string name = hashed_name("Entry_", type_name<T>()) + std::string(encoding_suffix(E));
  if (!claim_name(b, name, &schema_key<multimap_entry<T, E>>, false)) return name;
  const std::size_t slot = b.blocks.size();
  b.blocks.emplace_back();
  std::string s = "message " + name + " {\n  " + key_type<E, typename T::key_type>(b) + " key = 1;\n  " +
                  value_type<E, typename T::mapped_type>(b) + " value = 2;\n}\n";
  b.blocks[slot] = std::move(s);
  return name;
}

template <int_encoding E, class X>
std::string define_wrapper(schema_builder& b) {
  const std::string name = hashed_name("Wrap_", type_name<X>()) + std::string(encoding_suffix(E));
  if (!claim_name(b, name, &schema_key<wrapped<X, E>>, false)) return name;
  const std::size_t slot = b.blocks.size();
  b.blocks.emplace_back();
  std::string s = "message " + name + " {\n  " + field_type<E, X>(b) + " value = 1;\n}\n";
  b.blocks[slot] = std::move(s);
  return name;
}

template <class T>
std::string define_message(schema_builder& b) {
  const std::string name = schema_name<T>();
  if (!claim_name(b, name, &schema_key<T>, has_type_name<T>)) return name;
  const std::size_t slot = b.blocks.size();
  b.blocks.emplace_back();  // this message's place: before the types it uses
  std::string s = "message " + name + " {\n";
  if constexpr (is_variant<T>::value) {
    s += "  oneof value {\n";
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((s += "    " + value_type<int_encoding::varint, std::variant_alternative_t<I, T>>(b) + " alt_" +
             std::to_string(I) + " = " + std::to_string(I + 1) + ";\n"),
       ...);
    }(std::make_index_sequence<std::variant_size_v<T>>{});
    s += "  }\n";
  } else if constexpr (is_tuple<T>::value) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((s += "  " + field_type<int_encoding::varint, element_value_t<std::tuple_element_t<I, T>>>(b) + " item_" +
             std::to_string(I + 1) + " = " + std::to_string(I + 1) + ";\n"),
       ...);
    }(std::make_index_sequence<std::tuple_size_v<T>>{});
  } else {
    check_numbers<T>();
    static constexpr type_attr attrs = type_attributes_of<T>();
    std::vector<std::uint32_t> reserved(attrs.reserved.begin(), attrs.reserved.end());
    boost::mp11::mp_for_each<typename fields_of<T>::type>([&](auto field) {
      using F = decltype(field);
      const std::string number = std::to_string(number_of<F>());
      if constexpr (F::attr.skip) {
        if constexpr (skipped_reserves<T, F>()) reserved.push_back(number_of<F>());
      } else {
        const std::string fname = F::name.empty() ? "field_" + number : std::string(F::name);
        s += "  " + field_type<encoding_of<F>, typename F::type>(b) + " " + fname + " = " + number + ";\n";
      }
    });
    s += reserved_lines(std::move(reserved), attrs.reserved_names.begin(), attrs.reserved_names.end());
  }
  s += "}\n";
  b.blocks[slot] = std::move(s);
  return name;
}

template <class T>
std::string schema(std::string_view package) {
  schema_builder b;
  if constexpr (has_codec<T>) {
    return schema<typename codec<T>::wire>(package);
  } else {
    if constexpr (top_level_message<T>()) {
      define_message<T>(b);
    } else {
      define_wrapper<int_encoding::varint, T>(b);
    }
    return render_schema(b, package);
  }
}

}  // namespace refwire::detail::pb
