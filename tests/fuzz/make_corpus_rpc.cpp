// Writes the seed corpus of fuzz_rpc_frames: the selector byte (0 header,
// 1 handshake, 2 handshake reply, 3 error payload), then a header of each
// kind or a payload as the encoders write it.
// Usage: fuzz_rpc_frames_corpus <dir> (the committed seeds are in tests/fuzz/corpus/rpc_frames/).
#include <refwire/rpc/detail/protocol.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace pd = refwire::rpc::detail;

namespace {

void write(const std::string& path, std::uint8_t selector, const std::vector<std::byte>& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  const char s = static_cast<char>(selector);
  f.write(&s, 1);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

template <class Payload>
std::vector<std::byte> encoded(const Payload& p) {
  std::vector<std::byte> out;
  pd::encode(p, out);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];

  for (std::uint8_t k = 1; k <= 9; ++k) {
    const auto kind = static_cast<pd::frame_kind>(k);
    const bool codec = kind == pd::frame_kind::request || kind == pd::frame_kind::response || kind == pd::frame_kind::one_way;
    const bool empty = kind == pd::frame_kind::cancel || kind == pd::frame_kind::ping || kind == pd::frame_kind::pong;
    const pd::frame_header h{.kind = kind,
                             .flags = codec ? pd::flag_compressed : std::uint8_t{0},
                             .codec = codec ? std::uint8_t{1} : std::uint8_t{0},
                             .length = empty ? 0u : 300u,
                             .request_id = 7,
                             .method_id = codec ? 0x4a86edcaU : 0u};
    std::array<std::byte, pd::header_size> b{};
    pd::write_header(h, b);
    write(dir + "/header-" + std::string(pd::to_string(kind)) + ".bin", 0, {b.begin(), b.end()});
  }

  pd::handshake h;
  h.compression = refwire::compression::lz4;
  h.compression_threshold = 1024;
  h.max_frame_size = 16u << 20;
  h.interface_name = "calc.v1";
  h.methods = {{0x4a86edcaU, "calc.v1.add", "(i32,i32)->i32", "(i32,i32)->i32"},
               {0x8aec7b5fU, "calc.v1.log", "(string)->void", "(string)->void"}};
  h.extensions = {{1, {std::byte{0xde}, std::byte{0xad}}}};
  write(dir + "/handshake.bin", 1, encoded(h));
  write(dir + "/handshake-empty.bin", 1, encoded(pd::handshake{}));

  pd::handshake_reply r;
  r.max_frame_size = 1u << 20;
  r.methods = {{pd::method_state::ok, ""}, {pd::method_state::unknown, ""},
               {pd::method_state::mismatch, "(i64,i64)->i64"}};
  r.extensions = {{1, {}}};
  write(dir + "/handshake-reply.bin", 2, encoded(r));

  write(dir + "/error.bin", 3,
        encoded(pd::error_payload{refwire::rpc::status_code::internal, "std::out_of_range", "index 7 out of range"}));
  write(dir + "/error-utf8.bin", 3,
        encoded(pd::error_payload{refwire::rpc::status_code::unavailable, "", "r\xc3\xa9seau \xe2\x9c\x93"}));
  return 0;
}
