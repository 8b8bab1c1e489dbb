// driver.h — nh-ref-gen: loads the checkpoint, generates, compares with a golden, and speaks the
// seeds' line shapes and exit codes (0 STRICT PASS, 1 DIVERGENCE/failure, 2 usage or golden,
// 3 zero compared, 4 SHORT).
#pragma once
#include <string>
#include <vector>

namespace nhref {

enum ExitCode { kExitPass = 0, kExitDivergence = 1, kExitUsage = 2, kExitZeroCompared = 3, kExitShort = 4 };

// The parsed command line.
struct DriverArgs {
  std::string checkpoint, preset, golden, events;
  std::vector<std::string> prompts;
  int maxNew = -1;  // -1: the golden's width, or 32 without a golden
  std::vector<std::string> modes{"decode"};
  bool loadOnly = false, goldenInfo = false, help = false;
};

// Throws std::invalid_argument naming the bad argument.
DriverArgs parseDriverArgs(const std::vector<std::string>& argv);

// The whole run; returns the exit code.
int runDriver(const DriverArgs& args);

}  // namespace nhref
