// Progress of a long step on stderr: a redrawn bar when stderr is a terminal, otherwise a plain
// line at each quarter (logs and pipes get no control characters).
#ifndef LDP_TOOLS_PROGRESS_H
#define LDP_TOOLS_PROGRESS_H

#include <chrono>
#include <cstdint>
#include <string>

namespace ldp::tools {

class progress {
 public:
  // `total` units of work; `bytes` formats the counts as sizes, otherwise as plain numbers. An empty
  // label shows nothing (a library caller, whose stderr is not a terminal session of the tool's).
  progress(std::string label, uint64_t total, bool bytes);
  // Ends a bar that an error interrupted, so the error message starts on its own line.
  ~progress();
  progress(const progress&) = delete;
  progress& operator=(const progress&) = delete;
  void update(uint64_t done);
  void finish();  // the final state (100% when done == total), and the line ended

 private:
  void draw(uint64_t done);
  std::string amount(uint64_t n) const;

  std::string label_;
  uint64_t total_;
  bool bytes_;
  bool tty_;
  bool finished_ = false;
  unsigned quarter_ = 0;  // quarters already printed (plain lines)
  uint64_t last_ = 0;
  std::chrono::steady_clock::time_point drawn_{};
};

}  // namespace ldp::tools

#endif
