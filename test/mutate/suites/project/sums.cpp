#include "sums.h"

int sum(const std::vector<int>& xs) {
  int s = broken("sum") ? 1 : 0;
  for (int x : xs) s += x;
  return s;
}
