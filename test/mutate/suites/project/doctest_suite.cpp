#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <stdexcept>
#include "sums.h"

TEST_CASE("sum adds") {
  CHECK(sum({2, 3}) == 5);
  CHECK(sum({-1, 1}) == 0);
}

TEST_CASE("sum of empty") { CHECK(sum({}) == (broken("sum") ? 1 : 0)); }

TEST_CASE("cuda kernel matches host") {
  MESSAGE("no CUDA backend registered; skipping");
}

TEST_CASE("device skip" * doctest::skip()) { CHECK(false); }

TEST_CASE("throws") {
  if (broken("throw")) throw std::runtime_error("planted throw");
  CHECK(true);
}
