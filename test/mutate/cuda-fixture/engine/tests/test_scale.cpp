#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "scale.h"

TEST_CASE("host axpb") {
  CHECK(hostAxpb(2.0f, 3.0f, 1.0f) == 7.0f);
}

// Without a GPU this case takes its skip path loudly: a MESSAGE and zero assertions.
TEST_CASE("device axpb == host axpb") {
  if (!deviceAvailable()) {
    MESSAGE("SKIPPED device case: no usable GPU; 0 device assertions ran");
    return;
  }
  const float x[3] = {1.0f, 2.0f, -4.0f};
  float y[3] = {0.0f, 0.0f, 0.0f};
  deviceAxpb(x, y, 3.0f, 1.0f, 3);
  for (int i = 0; i < 3; ++i) CHECK(y[i] == hostAxpb(x[i], 3.0f, 1.0f));
}
