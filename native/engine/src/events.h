// events.h — the --events JSONL stream (src/config/events.ts): one object per line, flushed per
// line, tNs = CLOCK_MONOTONIC nanoseconds as a decimal string.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace nhref {

// CLOCK_MONOTONIC in nanoseconds: the clock nh-gate aligns its samples with.
uint64_t monotonicNs();

class EventSink {
 public:
  EventSink() = default;
  ~EventSink();
  // Opens (truncates) the file; false with errno set when it cannot.
  bool open(const std::string& path);
  bool enabled() const { return f_ != nullptr; }
  // Writes {"event":name,"tNs":"...",<fields>} where fields is already-encoded JSON members (may be empty).
  void emit(const char* name, const std::string& fields);

 private:
  FILE* f_ = nullptr;
};

// Encodes counters as {"a":1,"b":2}.
std::string countersJson(const std::vector<std::pair<std::string, int64_t>>& fields);

}  // namespace nhref
