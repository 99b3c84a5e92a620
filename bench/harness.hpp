#pragma once
// bench/harness.hpp: how every peer's encode and decode benchmark is run, so
// that all peers are measured the same way.
//
// A peer is a "codec" class for one value type:
//
//   struct my_codec {
//     using value_type = refwire_bench::record;
//     void encode(const value_type& v);          // into buffers the object keeps and reuses
//     const std::byte* data() const;             // the last encoding
//     std::size_t size() const;
//     bool decode(std::span<const std::byte> in, value_type& out);  // false: rejected
//   };
//
// add_codec<my_codec>("record", "mypeer", get) registers "record/encode/mypeer"
// and "record/decode/mypeer". Encode reuses one codec object (its buffers keep
// their capacity); decode decodes into a fresh value_type every iteration (the
// codec object may keep scratch state across decodes, e.g. a parsed message).
// Before any timing, decode(encode(v)) is compared with v, and a mismatch
// aborts the program naming the peer and the data set.

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

namespace refwire_bench {

enum class direction { encode, decode };

/// The data sets, in table order.
inline constexpr std::string_view data_set_names[] = {"small", "record", "bulk_doubles", "bulk_strings", "many"};
/// The peers, in table order; "floor" is memcpy (encode) or a deep copy (decode).
inline constexpr std::string_view peer_names[] = {"refwire", "protobuf", "flatbuffers", "cereal", "floor"};

/// One benchmark to register: run_report() sorts them into table order first.
struct bench_def {
  std::string data_set;
  direction dir;
  std::string peer;
  std::function<void(benchmark::State&)> run;
};

/// Every peer's benchmarks, registered by the register_*() functions below (report.cpp).
std::vector<bench_def>& registry();

void register_refwire();
void register_protobuf();
void register_flatbuffers();
void register_cereal();
void register_floor();

/// refwire's binary encoding size of a data set: the basis of every peer's MB/s.
std::size_t refwire_encoded_size(std::string_view data_set);

/// The running program's name ("bench_binary", "bench_json"), for messages (report.cpp).
std::string_view program_name();

[[noreturn]] inline void fail_check(std::string_view peer, std::string_view data_set, std::string_view what) {
  const std::string_view program = program_name();
  std::fprintf(stderr, "%.*s: %.*s on %.*s: %.*s\n", static_cast<int>(program.size()), program.data(),
               static_cast<int>(peer.size()), peer.data(), static_cast<int>(data_set.size()), data_set.data(),
               static_cast<int>(what.size()), what.data());
  std::abort();
}

inline std::string bench_name(std::string_view data_set, direction dir, std::string_view peer) {
  std::string n(data_set);
  n += dir == direction::encode ? "/encode/" : "/decode/";
  n += peer;
  return n;
}

/// Registers the encode and the decode benchmark of Codec on the value get() returns.
template <class Codec>
void add_codec(std::string data_set, std::string peer, const typename Codec::value_type& (*get)()) {
  using T = typename Codec::value_type;

  registry().push_back({data_set, direction::encode, peer, [get, data_set, peer](benchmark::State& state) {
                          const T& value = get();
                          Codec codec;
                          codec.encode(value);  // warm-up: the reused buffers reach their size
                          if (codec.size() == 0) fail_check(peer, data_set, "encoded to nothing");
                          for (auto _ : state) {
                            codec.encode(value);
                            const std::byte* out = codec.data();
                            benchmark::DoNotOptimize(out);
                            benchmark::ClobberMemory();
                          }
                          state.counters["bytes"] = static_cast<double>(codec.size());
                        }});

  registry().push_back({data_set, direction::decode, peer, [get, data_set, peer](benchmark::State& state) {
                          const T& value = get();
                          std::vector<std::byte> input;
                          {
                            Codec encoder;
                            encoder.encode(value);
                            input.assign(encoder.data(), encoder.data() + encoder.size());
                          }
                          Codec codec;
                          {  // correctness, once, before timing
                            T check{};
                            if (!codec.decode(input, check)) fail_check(peer, data_set, "decode rejected its own encoding");
                            if (!(check == value)) fail_check(peer, data_set, "decoded value differs from the original");
                          }
                          for (auto _ : state) {
                            T out{};
                            if (!codec.decode(input, out)) [[unlikely]] {
                              state.SkipWithError("decode failed");
                              break;
                            }
                            benchmark::DoNotOptimize(out);
                            benchmark::ClobberMemory();
                          }
                          state.counters["bytes"] = static_cast<double>(input.size());
                        }});
}

}  // namespace refwire_bench
