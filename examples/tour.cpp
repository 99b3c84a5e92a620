// A tour of the binary format: a realistic struct with inheritance, enums,
// containers, optionals, variants, uuids and timestamps; its bytes; its
// schema fingerprint; and what happens to damaged or hostile input.
#include <refwire/serialization.hpp>

#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace shop {

enum class status : std::uint8_t { open, paid, shipped };
BOOST_DESCRIBE_ENUM(status, open, paid, shipped)

struct entity {
  refwire::uuid id;
  refwire::timestamp created{};
};
BOOST_DESCRIBE_STRUCT(entity, (), (id, created))

struct line {
  std::string sku;
  std::uint32_t quantity = 0;
  double unit_price = 0;
};
BOOST_DESCRIBE_STRUCT(line, (), (sku, quantity, unit_price))

struct card { std::string last4; };
BOOST_DESCRIBE_STRUCT(card, (), (last4))
struct invoice { std::uint32_t days = 30; };
BOOST_DESCRIBE_STRUCT(invoice, (), (days))

struct order : entity {
  status state = status::open;
  std::vector<line> lines;
  std::map<std::string, std::string> tags;
  std::optional<std::string> note;
  std::variant<card, invoice> payment;
  std::string render_cache;  // derived data: never on the wire
};
BOOST_DESCRIBE_STRUCT(order, (entity), (state, lines, tags, note, payment, render_cache))
REFWIRE_ATTRIBUTES(order, {.name = "render_cache", .skip = true})

}  // namespace shop

static void hex(const std::vector<std::byte>& b) {
  for (std::size_t i = 0; i < b.size(); ++i) std::printf("%02x%s", static_cast<unsigned>(b[i]), (i % 32 == 31) ? "\n  " : " ");
  std::printf("\n");
}

int main() {
  shop::order o;
  o.id = refwire::uuid::from_string("6f1c2a4e-8b0d-4e57-9a3b-2f5d6c7e8a90");
  o.created = refwire::timestamp(std::chrono::seconds(1'767'225'600));  // 2026-01-01T00:00:00Z
  o.state = shop::status::paid;
  o.lines = {{"KB-101", 2, 49.5}, {"MS-7", 1, 19.99}};
  o.tags = {{"channel", "web"}, {"region", "eu"}};
  o.note = "leave at the door";
  o.payment = shop::card{"4242"};
  o.render_cache = "<div>...</div>";

  const std::vector<std::byte> bytes = refwire::serialize(o);
  std::printf("order: %zu bytes\n  ", bytes.size());
  hex(bytes);
  std::printf("schema: %s\nfingerprint: %016llx\n", refwire::type_name<shop::order>().c_str(),
              static_cast<unsigned long long>(refwire::fingerprint<shop::order>()));

  const shop::order back = refwire::deserialize<shop::order>(bytes);
  std::printf("decoded: %s, %zu lines, first %s x%u, note \"%s\", paid by card %s, cache \"%s\"\n",
              back.id.to_string().c_str(), back.lines.size(), back.lines[0].sku.c_str(), back.lines[0].quantity,
              back.note->c_str(), std::get<shop::card>(back.payment).last4.c_str(), back.render_cache.c_str());

  // Damage: every kind of bad input is an error that says where, never a crash.
  shop::order into;
  std::vector<std::byte> cut(bytes.begin(), bytes.begin() + 60);
  std::printf("cut at 60:      %s\n", refwire::deserialize<refwire::binary>(cut, into).message().c_str());
  std::vector<std::byte> bad_variant = bytes;
  bad_variant[bytes.size() - 6] = std::byte{7};  // the variant index
  std::printf("bad variant:    %s\n", refwire::deserialize<refwire::binary>(bad_variant, into).message().c_str());
  std::vector<std::byte> hostile = {std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0x0f}};
  std::vector<std::string> strings;
  std::printf("2^32 strings:   %s\n", refwire::deserialize<refwire::binary>(hostile, strings).message().c_str());
  return back.lines.size() == 2 && back.render_cache.empty() ? 0 : 1;
}
