// The floors: what no serializer can beat by much.
//
// Encode floor: memcpy of the same field bytes into a reused buffer (each
// scalar's bytes, each string's characters, each vector's data; no lengths,
// tags or checks), so it is smaller than any real encoding.
// Decode floor: a plain deep copy, `T copy = original;`, which allocates what
// a decoded value allocates.
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "getters.hpp"
#include "harness.hpp"

namespace refwire_bench {
namespace {

struct counting_sink {
  std::size_t n = 0;
  void put(const void*, std::size_t size) { n += size; }
};

struct memcpy_sink {
  std::byte* cur = nullptr;
  void put(const void* p, std::size_t size) {
    std::memcpy(cur, p, size);
    cur += size;
  }
};

template <class Sink, class T>
void put_raw(Sink& s, const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  s.put(&v, sizeof v);
}

template <class Sink>
void copy_fields(Sink& s, const std::string& v) {
  s.put(v.data(), v.size());
}

template <class Sink>
void copy_fields(Sink& s, const small& v) {
  put_raw(s, v.id);
  put_raw(s, v.stamp);
  put_raw(s, v.value);
  put_raw(s, v.flag);
  copy_fields(s, v.name);
}

template <class Sink>
void copy_fields(Sink& s, const address& v) {
  copy_fields(s, v.street);
  copy_fields(s, v.city);
  put_raw(s, v.zip);
  put_raw(s, v.latitude);
  put_raw(s, v.longitude);
}

template <class Sink>
void copy_fields(Sink& s, const record& v) {
  put_raw(s, v.id);
  copy_fields(s, v.name);
  copy_fields(s, v.email);
  copy_fields(s, v.home);
  s.put(v.scores.data(), v.scores.size() * sizeof(std::int32_t));
  if (v.nickname) copy_fields(s, *v.nickname);
  put_raw(s, v.state);
  put_raw(s, v.key);
  put_raw(s, v.created);
  put_raw(s, v.balance);
  put_raw(s, v.verified);
  put_raw(s, v.age);
}

template <class Sink>
void copy_fields(Sink& s, const doubles& v) {
  s.put(v.data(), v.size() * sizeof(double));
}

template <class Sink, class E>
void copy_fields(Sink& s, const std::vector<E>& v) {
  for (const E& e : v) copy_fields(s, e);
}

template <class T>
struct memcpy_floor {
  using value_type = T;
  std::vector<std::byte> buffer;
  std::size_t used = 0;

  void encode(const T& v) {
    if (buffer.empty()) {  // sized once: the reused buffer
      counting_sink count;
      copy_fields(count, v);
      buffer.resize(count.n);
    }
    memcpy_sink sink{buffer.data()};
    copy_fields(sink, v);
    used = static_cast<std::size_t>(sink.cur - buffer.data());
  }
  [[nodiscard]] const std::byte* data() const { return buffer.data(); }
  [[nodiscard]] std::size_t size() const { return used; }
};

template <class T>
void add_floor(const std::string& data_set, const T& (*get)()) {
  registry().push_back({data_set, direction::encode, "floor", [get, data_set](benchmark::State& state) {
                          const T& value = get();
                          memcpy_floor<T> floor;
                          floor.encode(value);
                          if (floor.size() == 0) fail_check("floor", data_set, "copied nothing");
                          for (auto _ : state) {
                            floor.encode(value);
                            const std::byte* out = floor.data();
                            benchmark::DoNotOptimize(out);
                            benchmark::ClobberMemory();
                          }
                          state.counters["bytes"] = static_cast<double>(floor.size());
                        }});
  registry().push_back({data_set, direction::decode, "floor", [get, data_set](benchmark::State& state) {
                          const T& value = get();
                          {
                            const T check = value;
                            if (!(check == value)) fail_check("floor", data_set, "a copy differs from the original");
                          }
                          for (auto _ : state) {
                            T copy = value;
                            benchmark::DoNotOptimize(copy);
                            benchmark::ClobberMemory();
                          }
                          counting_sink count;
                          copy_fields(count, value);
                          state.counters["bytes"] = static_cast<double>(count.n);
                        }});
}

}  // namespace

void register_floor() {
  add_floor<small>("small", get::small_value);
  add_floor<record>("record", get::record_value);
  add_floor<doubles>("bulk_doubles", get::bulk_doubles);
  add_floor<strings>("bulk_strings", get::bulk_strings);
  add_floor<records>("many", get::many);
}

}  // namespace refwire_bench
