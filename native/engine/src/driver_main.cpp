// nh-ref-gen — the reference engine's driver.
#include <cstdio>
#include <stdexcept>

#include "driver.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  nhref::DriverArgs parsed;
  try {
    parsed = nhref::parseDriverArgs(args);
  } catch (const std::invalid_argument& e) {
    std::printf("[nh-ref] REFUSING: usage: %s\n", e.what());
    std::printf("[nh-ref] usage: nh-ref-gen --checkpoint FILE [--preset P] [--golden DIR|FILE] [--prompt TEXT]... [--max-new N] "
                "[--mode decode|fresh-prefill|both] [--events FILE] [--load-only] [--golden-info]\n");
    return nhref::kExitUsage;
  }
  try {
    return nhref::runDriver(parsed);
  } catch (const std::exception& e) {
    std::printf("[nh-ref] REFUSING: internal failure: %s\n", e.what());
    return nhref::kExitDivergence;
  }
}
