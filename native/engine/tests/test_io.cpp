// The boundary readers: JSON, golden.json, and the env flags (strict values, named errors).
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "flags.h"
#include "golden.h"
#include "json.h"

using namespace nhref;

namespace {

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "NO ERROR";
}

}  // namespace

TEST_CASE("JSON: values, escapes, and syntax errors with a byte position") {
  const Json j = parseJson(R"({"a": [1, -2.5e1, true, null], "s": "x\"\u00e9\n", "o": {}})");
  CHECK(j.at("a", "doc").array("doc.a").size() == 4);
  CHECK(j.at("a", "doc").arr[1].number("a[1]") == -25.0);
  CHECK(j.at("s", "doc").string("doc.s") == "x\"\xc3\xa9\n");
  CHECK(errorOf([] { parseJson("{\"a\": 1,}"); }).find("JSON syntax error at byte") != std::string::npos);
  CHECK(errorOf([] { parseJson("[1] x"); }).find("trailing characters") != std::string::npos);
  CHECK(errorOf([&] { j.at("missing", "doc"); }) == "doc.missing is missing");
  CHECK(errorOf([&] { j.at("s", "doc").integer("doc.s"); }) == "doc.s is a string, expected a number");
  CHECK(jsonQuote("a\"b\\\n\x01") == "\"a\\\"b\\\\\\n\\u0001\"");
}

TEST_CASE("golden reader: names the file and the field it cannot use") {
  const std::string path = "/tmp/nh-ref-golden-io-test.json";
  auto write = [&](const std::string& body) { std::ofstream(path) << body; };
  const std::string head = R"({"schemaVersion":1,"name":"g","checkpoint":{"revision":"abc"},"sampling":{"maxNewTokens":2},"prompts":)";
  write(head + R"([{"id":0,"promptTokens":[72,105],"tokens":[1,2]}]})");
  const Golden g = loadGolden(path);
  CHECK(g.prompts.size() == 1);
  CHECK(g.prompts[0].tokens == std::vector<int>{1, 2});
  CHECK(g.checkpointRevision == "abc");
  write(head + R"([{"id":0,"promptTokens":[72,300],"tokens":[1]}]})");
  CHECK(errorOf([&] { loadGolden(path); }).find("golden.prompts[0].promptTokens[1] = 300 is not a byte token") != std::string::npos);
  write(head + R"([]})");
  CHECK(errorOf([&] { loadGolden(path); }).find("golden.prompts is empty") != std::string::npos);
  write(head + R"([{"id":0,"promptTokens":[],"tokens":[1]}]})");
  CHECK(errorOf([&] { loadGolden(path); }).find("promptTokens is empty") != std::string::npos);
  write(R"({"schemaVersion":2})");
  CHECK(errorOf([&] { loadGolden(path); }).find("schemaVersion is not 1") != std::string::npos);
  std::remove(path.c_str());
  CHECK(errorOf([&] { loadGolden(path); }).find("cannot read") != std::string::npos);
}

TEST_CASE("flags: defaults when unset, 0/1 when set, anything else refused by name") {
  std::map<std::string, std::string> env;
  auto get = [&](const char* n) -> const char* {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  RunFlags f = readFlags(get);
  CHECK(f.engine.decodeStep);
  CHECK_FALSE(f.engine.deviceMamba);
  CHECK_FALSE(f.armTrace);
  env = {{"NH_REF_MAMBA_DECODE_STEP", "0"}, {"NH_REF_DEVICE_MAMBA", "1"}, {"NH_REF_ARM_TRACE", "1"}};
  f = readFlags(get);
  CHECK_FALSE(f.engine.decodeStep);
  CHECK(f.engine.deviceMamba);
  CHECK(f.armTrace);
  for (const char* bad : {"maybe", "", "true", "2", " 1"}) {
    env = {{"NH_REF_MAMBA_DECODE_STEP", bad}};
    CHECK(errorOf([&] { readFlags(get); }).find(std::string("NH_REF_MAMBA_DECODE_STEP='") + bad + "'") == 0);
  }
  env = {{"NH_REF_DEVICE_MAMBA", "on"}};
  CHECK(errorOf([&] { readFlags(get); }).find("NH_REF_DEVICE_MAMBA='on' is not a value this engine knows") == 0);
}
