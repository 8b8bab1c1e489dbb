#pragma once
#include <cstdlib>
#include <cstring>
#include <vector>

// The code under test: a sum, and a switch the captures use to break one case at a time.
int sum(const std::vector<int>& xs);
inline bool broken(const char* which) {
  const char* b = std::getenv("SUITE_BREAK");
  return b != nullptr && std::strcmp(b, which) == 0;
}
