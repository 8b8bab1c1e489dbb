// The doctest runner for nh-ref-tests (one binary, every suite).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
