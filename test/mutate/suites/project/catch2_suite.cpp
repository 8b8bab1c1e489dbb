#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <stdexcept>
#include "sums.h"

TEST_CASE("sum adds", "[sum]") {
  CHECK(sum({2, 3}) == 5);
  CHECK(sum({-1, 1}) == 0);
}

TEST_CASE("sum of empty", "[sum]") { CHECK(sum({}) == (broken("sum") ? 1 : 0)); }

TEST_CASE("cuda kernel matches host", "[cuda]") {
  WARN("no CUDA backend registered; skipping");
}

// Catch2 v2 (Debian 12) has no runtime skip; a hidden case ([.]) is never selected by default.
TEST_CASE("device skip", "[.][device]") { CHECK(false); }

TEST_CASE("throws", "[throw]") {
  if (broken("throw")) throw std::runtime_error("planted throw");
  CHECK(true);
}
