#include "progress.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "output.h"

namespace ldp::tools {

progress::progress(std::string label, uint64_t total, bool bytes)
    : label_(std::move(label)), total_(total), bytes_(bytes), tty_(::isatty(STDERR_FILENO) == 1) {}

progress::~progress() {
  if (tty_ && !finished_ && drawn_ != std::chrono::steady_clock::time_point{}) fmt::print(stderr, "\n");
}

std::string progress::amount(uint64_t n) const { return bytes_ ? format_bytes(n) : format_count(n); }

void progress::draw(uint64_t done) {
  const double fraction = total_ == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total_);
  constexpr int width = 30;
  const int filled = static_cast<int>(fraction * width);
  fmt::print(stderr, "\r{} [{}{}] {:3.0f}% {} / {}", label_, std::string(static_cast<std::size_t>(filled), '#'),
             std::string(static_cast<std::size_t>(width - filled), '.'), 100 * fraction, amount(done), amount(total_));
  std::fflush(stderr);
}

void progress::update(uint64_t done) {
  last_ = done;
  if (label_.empty()) return;
  if (tty_) {
    const auto now = std::chrono::steady_clock::now();
    if (now - drawn_ < std::chrono::milliseconds(100)) return;
    drawn_ = now;
    draw(done);
    return;
  }
  if (total_ == 0 || done >= total_) return;  // finish() prints the end
  const auto quarter = static_cast<unsigned>(done * 4 / total_);
  if (quarter > quarter_) {
    quarter_ = quarter;
    fmt::print(stderr, "{}: {}% ({} / {})\n", label_, 25 * quarter_, amount(done), amount(total_));
  }
}

void progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (label_.empty()) return;
  if (tty_) {
    draw(last_);
    fmt::print(stderr, "\n");
  } else {
    fmt::print(stderr, "{}: done ({})\n", label_, amount(last_));
  }
}

}  // namespace ldp::tools
