#include "golden.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "json.h"

namespace nhref {
namespace {

std::vector<int> tokenList(const Json& arr, const std::string& path) {
  std::vector<int> out;
  const auto& items = arr.array(path);
  for (size_t i = 0; i < items.size(); ++i) {
    const long long v = items[i].integer(path + "[" + std::to_string(i) + "]");
    if (v < 0 || v > 255) throw JsonError(path + "[" + std::to_string(i) + "] = " + std::to_string(v) + " is not a byte token (0..255)");
    out.push_back(int(v));
  }
  return out;
}

}  // namespace

Golden loadGolden(const std::string& dirOrFile) {
  std::string path = dirOrFile;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) path += "/golden.json";
  std::ifstream in(path);
  if (!in) throw GoldenError("golden " + path + ": cannot read (" + std::strerror(errno) + ") — pass --golden goldens/<name> or a golden.json");
  std::stringstream ss;
  ss << in.rdbuf();
  Golden g;
  g.path = path;
  try {
    const Json j = parseJson(ss.str());
    if (j.at("schemaVersion", "golden").integer("golden.schemaVersion") != 1)
      throw JsonError("golden.schemaVersion is not 1 (this engine reads version 1)");
    g.name = j.at("name", "golden").string("golden.name");
    g.checkpointRevision = j.at("checkpoint", "golden").at("revision", "golden.checkpoint").string("golden.checkpoint.revision");
    g.maxNewTokens = int(j.at("sampling", "golden").at("maxNewTokens", "golden.sampling").integer("golden.sampling.maxNewTokens"));
    const auto& prompts = j.at("prompts", "golden").array("golden.prompts");
    if (prompts.empty()) throw JsonError("golden.prompts is empty");
    for (size_t i = 0; i < prompts.size(); ++i) {
      const std::string p = "golden.prompts[" + std::to_string(i) + "]";
      GoldenPrompt gp;
      gp.id = int(prompts[i].at("id", p).integer(p + ".id"));
      gp.promptTokens = tokenList(prompts[i].at("promptTokens", p), p + ".promptTokens");
      gp.tokens = tokenList(prompts[i].at("tokens", p), p + ".tokens");
      if (gp.promptTokens.empty()) throw JsonError(p + ".promptTokens is empty");
      g.prompts.push_back(gp);
    }
  } catch (const JsonError& e) {
    throw GoldenError("golden " + path + ": " + e.what());
  }
  return g;
}

}  // namespace nhref
