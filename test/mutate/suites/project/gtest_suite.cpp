#include <gtest/gtest.h>
#include <iostream>
#include <stdexcept>
#include "sums.h"

TEST(Sum, Adds) {
  EXPECT_EQ(sum({2, 3}), 5);
  EXPECT_EQ(sum({-1, 1}), 0);
}

TEST(Sum, OfEmpty) { EXPECT_EQ(sum({}), broken("sum") ? 1 : 0); }

TEST(Cuda, KernelMatchesHost) {
  std::cout << "no CUDA backend registered; skipping" << std::endl;
}

TEST(Device, Skip) { GTEST_SKIP() << "no device"; }

TEST(Throws, Planted) {
  if (broken("throw")) throw std::runtime_error("planted throw");
  SUCCEED();
}
