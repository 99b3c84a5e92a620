#pragma once
// The read buffer of a connection, shared by the client and the server: bytes
// arrive in any chunks; next() hands out whole frames in place (no copy), and
// the buffer grows only to fit the frame being read, whose length the header
// has already checked against max_frame_size.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <refwire/rpc/detail/protocol.hpp>
#include <span>
#include <string>
#include <vector>

namespace refwire::rpc::detail {

/// A whole frame in the read buffer: valid until the next space() or commit().
struct frame_view {
  frame_header header;
  std::span<const std::byte> payload;
};

class frame_reader {
 public:
  /// The buffer a new connection starts with (it grows to fit a frame).
  static constexpr std::size_t initial_size = 4 * 1024;
  /// The most one read takes (space(read_max)) unless it reads the rest of a
  /// frame that goes through the buffer whole: a large frame's header is then
  /// seen before its bytes fill the buffer.
  static constexpr std::size_t read_max = 64 * 1024;

  /// The next whole frame, or nullopt when more bytes are needed; on a header
  /// that does not parse, nullopt with why set.
  std::optional<frame_view> next(std::uint32_t max_payload, std::string& why) {
    const std::size_t have = end_ - begin_;
    if (have < header_size) {
      want_ = header_size;
      return std::nullopt;
    }
    const std::span<const std::byte, header_size> head(buf_.data() + begin_, header_size);
    std::optional<frame_header> h = parse_header(head, max_payload, why);
    if (!h) return std::nullopt;
    const std::size_t total = header_size + h->length;
    if (have < total) {
      want_ = total;
      return std::nullopt;
    }
    return frame_view{*h, std::span<const std::byte>(buf_.data() + begin_ + header_size, h->length)};
  }

  /// The frame being read when only part of it is buffered: its header and
  /// the payload bytes buffered so far (valid until the next space() or
  /// commit()); nullopt when no header is buffered, or the whole frame is.
  /// The header has been checked by next() already.
  [[nodiscard]] std::optional<frame_view> partial(std::uint32_t max_payload) const {
    const std::size_t have = end_ - begin_;
    if (have < header_size) return std::nullopt;
    std::string why;
    const std::span<const std::byte, header_size> head(buf_.data() + begin_, header_size);
    std::optional<frame_header> h = parse_header(head, max_payload, why);
    if (!h || have >= header_size + h->length) return std::nullopt;
    return frame_view{*h, std::span<const std::byte>(buf_.data() + begin_ + header_size, have - header_size)};
  }

  /// Forgets the partial frame (whose rest its reader took from the stream itself).
  void drop_partial() noexcept {
    begin_ = end_ = 0;
    want_ = header_size;
  }

  /// Drops f (the frame next() returned) from the buffer.
  void consume(const frame_view& f) noexcept {
    begin_ += header_size + f.header.length;
    if (begin_ == end_) begin_ = end_ = 0;
    want_ = header_size;
  }

  /// Where the next read goes: never empty; room for at least the rest of
  /// the frame being read, or, when cap is smaller, for a buffer of cap bytes
  /// (a frame whose rest goes elsewhere does not grow the buffer).
  std::span<std::byte> space(std::size_t cap = SIZE_MAX) {
    if (buf_.empty()) buf_.resize(initial_size);
    const std::size_t have = end_ - begin_;
    std::size_t need = want_ > have ? want_ : have + 1;
    if (need > cap) need = cap > have ? cap : have + 1;
    if (buf_.size() - begin_ < need || (begin_ > 0 && end_ == buf_.size())) {
      if (have > 0) std::memmove(buf_.data(), buf_.data() + begin_, have);
      begin_ = 0;
      end_ = have;
    }
    if (buf_.size() < need) buf_.resize(need);
    return std::span<std::byte>(buf_.data() + end_, buf_.size() - end_);
  }

  /// Whether another whole frame follows f (the frame next() returned) in the
  /// buffer: its header and payload both read already.
  [[nodiscard]] bool has_frame_after(const frame_view& f) const noexcept {
    const std::size_t at = begin_ + header_size + f.header.length;
    if (end_ - at < header_size) return false;
    std::uint32_t length = 0;
    for (int i = 3; i >= 0; --i)
      length = (length << 8) | static_cast<std::uint8_t>(buf_[at + 4 + static_cast<std::size_t>(i)]);
    return end_ - at - header_size >= length;
  }

  void commit(std::size_t n) noexcept { end_ += n; }
  /// The length field of the header being read (at least a header is buffered).
  [[nodiscard]] std::uint32_t length() const noexcept {
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
      v = (v << 8) | static_cast<std::uint8_t>(buf_[begin_ + 4 + static_cast<std::size_t>(i)]);
    return v;
  }
  /// The version byte of the frame being read (the buffer must not be empty).
  [[nodiscard]] std::uint8_t version() const noexcept { return static_cast<std::uint8_t>(buf_[begin_]); }
  [[nodiscard]] bool empty() const noexcept { return begin_ == end_; }

 private:
  std::vector<std::byte> buf_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::size_t want_ = header_size;
};

}  // namespace refwire::rpc::detail
