#pragma once
// What the transports tests share: a temporary directory per test, deadlines,
// running an io_context until something happened (bounded), exact reads.

#include <refwire/transports/transport.hpp>

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace refwire::transports::test {

using namespace std::chrono_literals;

/// A fresh directory under /tmp (short, so socket paths fit), removed with its content.
class temp_dir {
 public:
  temp_dir() {
    std::string pattern = "/tmp/refwire-tr-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::system_error(errno, std::generic_category(), "mkdtemp");
    path_ = pattern;
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline time_point in(clock::duration d) { return clock::now() + d; }

/// Runs io until done() holds or the limit passes; returns done().
inline bool run_until(boost::asio::io_context& io, const std::function<bool()>& done,
                      clock::duration limit = 5s) {
  const auto end = clock::now() + limit;
  while (!done() && clock::now() < end) {
    io.restart();
    if (io.run_one_for(10ms) == 0) std::this_thread::sleep_for(1ms);
  }
  return done();
}

/// Accepts one stream on l, running io (bounded).
inline std::unique_ptr<stream> accept_one(boost::asio::io_context& io, listener& l) {
  std::unique_ptr<stream> got;
  errc code = errc::io_error;
  bool finished = false;
  l.async_accept([&](errc c, std::unique_ptr<stream> s) {
    code = c;
    got = std::move(s);
    finished = true;
  });
  EXPECT_TRUE(run_until(io, [&] { return finished; }));
  EXPECT_EQ(code, errc::ok);
  return got;
}

/// Reads exactly n bytes (or until end of stream) before the deadline.
inline std::vector<std::byte> read_exact(stream& s, std::size_t n, time_point deadline) {
  std::vector<std::byte> out(n);
  std::size_t got = 0;
  while (got < n) {
    const std::size_t k = s.read_some(std::span(out).subspan(got), deadline);
    if (k == 0) break;
    got += k;
  }
  out.resize(got);
  return out;
}

inline std::vector<std::byte> bytes(std::string_view text) {
  std::vector<std::byte> b(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) b[i] = static_cast<std::byte>(text[i]);
  return b;
}

/// Bytes that differ position by position (so a reordering or a lost byte shows).
inline std::vector<std::byte> pattern(std::size_t n, unsigned seed = 1) {
  std::vector<std::byte> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::byte>((i * 131 + seed * 7 + (i >> 8)) & 0xff);
  return b;
}

/// Writes one buffer with write_all.
inline void write_bytes(stream& s, std::span<const std::byte> b, time_point deadline) {
  const std::span<const std::byte> parts[] = {b};
  s.write_all(parts, deadline);
}

/// The errc of what f throws (transport_error), errc::ok if it throws nothing.
template <class F>
errc code_of(F&& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const transport_error& e) {
    if (message != nullptr) *message = e.what();
    return e.code();
  }
  return errc::ok;
}

}  // namespace refwire::transports::test
