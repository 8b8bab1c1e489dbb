// golden.h — reads goldens/<name>/golden.json (src/config/golden.ts): the prompts and the oracle's tokens.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace nhref {

struct GoldenError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct GoldenPrompt {
  int id = 0;
  std::vector<int> promptTokens;
  std::vector<int> tokens;
};

struct Golden {
  std::string path;
  std::string name;
  std::string checkpointRevision;
  int maxNewTokens = 0;
  std::vector<GoldenPrompt> prompts;
};

// Accepts a directory (reads DIR/golden.json) or a file; throws GoldenError naming the file and field.
Golden loadGolden(const std::string& dirOrFile);

}  // namespace nhref
