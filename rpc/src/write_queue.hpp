#pragma once
// The client's writing side of one connection: callers on many threads send
// frames on one stream, and while one of them writes (the writer role),
// the others' small frames are copied into a queue that the writer sends
// after its own, in one gather write, before it gives the role up. Those
// callers return at once, without a system call: with many callers on a
// connection, one write carries many frames. A caller alone writes its frame
// from its own memory (no copy), as before; a frame too large to copy waits
// for the role until its caller's deadline.
//
// A frame handed to the writer is written whole, or the write fails and the
// caller that holds the role breaks the connection (never half a frame and
// then another frame).

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <refwire/transports/transport.hpp>
#include <span>
#include <vector>

namespace refwire::rpc::detail {

class write_queue {
 public:
  using clock = std::chrono::steady_clock;
  using time_point = clock::time_point;
  using parts = std::span<const std::span<const std::byte>>;

  /// A frame up to this size is copied into the queue when another caller
  /// writes; a larger one waits for the writer role and goes from its caller's memory.
  static constexpr std::size_t copy_max = 2048;
  /// What the queue holds at most (a caller finding it full waits for the role).
  static constexpr std::size_t queue_max = 16u << 10;
  /// The most parts of one frame (header, deadline prefix, and the payload's
  /// bytes with up to 8 large blobs of the caller's between them).
  static constexpr std::size_t max_parts = 20;

  write_queue() {
    pending_.reserve(queue_max);
    batch_.reserve(queue_max);
  }
  write_queue(const write_queue&) = delete;
  write_queue& operator=(const write_queue&) = delete;

  /// Sends one frame (its parts, in order) on s: written now by this thread,
  /// with whatever other callers queued meanwhile, or queued for the thread
  /// that writes. False, having handed nothing over, when the frame could
  /// neither be queued nor written before the deadline (another caller's
  /// write held the stream). Throws what the stream throws (this thread held
  /// the role: the connection must then be broken; every frame queued is dropped).
  [[nodiscard]] bool send(transports::stream& s, parts frame, time_point deadline) {
    std::size_t size = 0;
    for (const auto& p : frame) size += p.size();
    std::unique_lock lock(mutex_);
    if (writing_) {
      if (fits(size)) {
        append(frame, deadline);
        return true;
      }
      ++waiters_;
      const auto free = [&] { return !writing_ || fits(size); };
      bool got = true;
      if (deadline == time_point::max()) {
        changed_.wait(lock, free);
      } else {
        got = changed_.wait_until(lock, deadline, free);
      }
      --waiters_;
      if (!got) return false;
      if (writing_) {
        append(frame, deadline);
        return true;
      }
    }
    writing_ = true;
    time_point until = deadline;
    std::array<std::span<const std::byte>, max_parts + 1> gather{};
    std::size_t n = 0;
    if (!pending_.empty()) {  // queued while the last writer was giving up the role
      take_locked(until);
      gather[n++] = batch_;
    }
    for (const auto& p : frame) {
      if (!p.empty() && n < gather.size()) gather[n++] = p;
    }
    lock.unlock();
    try {
      s.write_all(parts(gather.data(), n), until);
      lock.lock();
      while (!pending_.empty()) {  // what others queued while this thread wrote
        take_locked(until);
        lock.unlock();
        const std::span<const std::byte> batch[] = {batch_};
        s.write_all(batch, until);
        lock.lock();
      }
    } catch (...) {
      if (!lock.owns_lock()) lock.lock();
      pending_.clear();
      pending_until_ = time_point::min();
      release_locked();
      throw;
    }
    release_locked();
    return true;
  }

  /// Frames queued now (for tests).
  [[nodiscard]] std::size_t queued_bytes() {
    std::lock_guard lock(mutex_);
    return pending_.size();
  }

 private:
  [[nodiscard]] bool fits(std::size_t size) const noexcept {
    return size <= copy_max && pending_.size() + size <= queue_max;
  }

  void append(parts frame, time_point deadline) {
    for (const auto& p : frame) pending_.insert(pending_.end(), p.begin(), p.end());
    pending_until_ = std::max(pending_until_, deadline);
  }

  /// Moves the queue into batch_ (which the writer then sends): the frames'
  /// latest deadline becomes the write's, so that no frame's owner has given
  /// up before its frame is due; callers waiting for room may queue again.
  void take_locked(time_point& until) {
    batch_.clear();
    batch_.swap(pending_);
    until = std::max(until, pending_until_);
    pending_until_ = time_point::min();
    if (waiters_ > 0) changed_.notify_all();
  }

  void release_locked() {
    batch_.clear();
    writing_ = false;
    if (waiters_ > 0) changed_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable changed_;  // the role given up, or room made in the queue
  bool writing_ = false;             // a thread holds the writer role
  unsigned waiters_ = 0;
  std::vector<std::byte> pending_;   // frames queued, whole, in order
  std::vector<std::byte> batch_;     // the writer's: the frames it is writing
  time_point pending_until_ = time_point::min();
};

}  // namespace refwire::rpc::detail
