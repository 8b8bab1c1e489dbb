#include "events.h"

#include <time.h>

namespace nhref {

uint64_t monotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ULL + uint64_t(ts.tv_nsec);
}

EventSink::~EventSink() {
  if (f_) std::fclose(f_);
}

bool EventSink::open(const std::string& path) {
  f_ = std::fopen(path.c_str(), "w");
  return f_ != nullptr;
}

void EventSink::emit(const char* name, const std::string& fields) {
  if (!f_) return;
  std::fprintf(f_, "{\"event\":\"%s\",\"tNs\":\"%llu\"%s%s}\n", name, (unsigned long long)monotonicNs(), fields.empty() ? "" : ",",
               fields.c_str());
  std::fflush(f_);
}

std::string countersJson(const std::vector<std::pair<std::string, int64_t>>& fields) {
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i)
    out += (i ? ",\"" : "\"") + fields[i].first + "\":" + std::to_string(fields[i].second);
  return out + "}";
}

}  // namespace nhref
