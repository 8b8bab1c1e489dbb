// The real nh-ref-gen binary on fixture goldens: its exit codes and refusals (SPEC §4).
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "checkpoint.h"
#include "model.h"

using namespace nhref;

namespace {

struct Run {
  int code = -1;
  std::string out;
};

Run sh(const std::string& cmd) {
  Run r;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return r;
}

// A temp dir with the tiny checkpoint and the tokens the engine generates for two prompts.
struct DriverFixture {
  std::string dir, ckpt;
  std::vector<std::vector<int>> prompts{{72, 101, 108, 108, 111}, {84, 104, 101, 32, 113, 117, 105, 99, 107}};
  std::vector<std::vector<int>> tokens;
  std::string sha;
  DriverFixture() {
    char tmpl[] = "/tmp/nh-ref-driver-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    ckpt = dir + "/tiny.ckpt";
    const Preset* p = findPreset("tiny");
    writeFileAtomic(ckpt, generateCheckpoint(*p));
    sha = p->pinnedSha256;
    const Checkpoint ck = loadCheckpoint(ckpt, "tiny");
    Model m(ck, EngineOptions{});
    for (const auto& pr : prompts) tokens.push_back(generate(m, pr, 8, Mode::Decode, [](int, int, int) {}, [](int, int) {}));
  }
  ~DriverFixture() { sh("rm -rf '" + dir + "'"); }
  // Writes a golden whose tokens are `tokens`, with prompt 0's token `flip` changed when >= 0.
  std::string golden(const std::string& name, int flip = -1, const std::string& revision = "") const {
    std::string body = "{\"schemaVersion\":1,\"name\":\"" + name + "\",\"oracle\":{\"name\":\"fixture\",\"version\":\"0\"},"
                       "\"checkpoint\":{\"name\":\"nh-ref-tiny\",\"revision\":\"" + (revision.empty() ? sha : revision) + "\"},"
                       "\"sampling\":{\"kind\":\"greedy\",\"maxNewTokens\":8},\"capturedAt\":\"x\",\"capturedHost\":\"x\","
                       "\"engineConfigRecorded\":\"no\",\"nearTie\":{\"licensed\":false,\"maxMarginNats\":0},"
                       "\"determinism\":null,\"prompts\":[";
    for (size_t i = 0; i < prompts.size(); ++i) {
      std::vector<int> t = tokens[i];
      if (i == 0 && flip >= 0) t[size_t(flip)] = (t[size_t(flip)] + 1) % 256;
      auto list = [](const std::vector<int>& v) {
        std::string s = "[";
        for (size_t k = 0; k < v.size(); ++k) s += (k ? "," : "") + std::to_string(v[k]);
        return s + "]";
      };
      body += std::string(i ? "," : "") + "{\"id\":" + std::to_string(i) + ",\"promptTokens\":" + list(prompts[i]) +
              ",\"tokens\":" + list(t) + "}";
    }
    body += "]}";
    const std::string path = dir + "/" + name + ".json";
    std::ofstream(path) << body;
    return path;
  }
  std::string gen(const std::string& args, const std::string& env = "") const {
    return env + " " + NH_REF_GEN_PATH + " --checkpoint " + ckpt + " " + args;
  }
};

}  // namespace

TEST_CASE("driver: matching golden -> STRICT PASS, exit 0; both modes agree") {
  DriverFixture f;
  const Run r = sh(f.gen("--golden " + f.golden("good") + " --mode both"));
  CHECK(r.code == 0);
  CHECK(r.out.find("[nh-ref] engine loaded in ") != std::string::npos);
  CHECK(r.out.find("TOKEN MATCH: 16/16 over 2 prompt(s) (full rows=2, short rows=0, mode=decode)") != std::string::npos);
  CHECK(r.out.find("TOKEN MATCH: 16/16 over 2 prompt(s) (full rows=2, short rows=0, mode=fresh-prefill)") != std::string::npos);
  CHECK(r.out.find("[nh-ref] STRICT PASS") != std::string::npos);
  const Run slow = sh(f.gen("--golden " + f.golden("good2"), "NH_REF_MAMBA_DECODE_STEP=0"));
  CHECK(slow.code == 0);
}

TEST_CASE("driver: one wrong token -> DIVERGENCE with got/exp lines, exit 1") {
  DriverFixture f;
  const Run r = sh(f.gen("--golden " + f.golden("bad", 3)));
  CHECK(r.code == 1);
  CHECK(r.out.find("matched=7") != std::string::npos);
  CHECK(r.out.find("[nh-ref]   got: ") != std::string::npos);
  CHECK(r.out.find("[nh-ref]   exp: ") != std::string::npos);
  CHECK(r.out.find("[nh-ref] DIVERGENCE") != std::string::npos);
  CHECK(r.out.find("STRICT PASS") == std::string::npos);
}

TEST_CASE("driver: zero compared -> exit 3; short -> exit 4") {
  DriverFixture f;
  const std::string g = f.golden("good");
  const Run zero = sh(f.gen("--golden " + g + " --max-new 0"));
  CHECK(zero.code == 3);
  CHECK(zero.out.find("TOKEN MATCH: 0/0") != std::string::npos);
  const Run shortRun = sh(f.gen("--golden " + g + " --max-new 5"));
  CHECK(shortRun.code == 4);
  CHECK(shortRun.out.find("<-- SHORT RUN") != std::string::npos);
  CHECK(shortRun.out.find("[nh-ref] SHORT: ") != std::string::npos);
}

TEST_CASE("driver: bad input is refused by name with exit 2") {
  DriverFixture f;
  const std::string g = f.golden("good");
  const Run flag = sh(f.gen("--golden " + g, "NH_REF_MAMBA_DECODE_STEP=maybe"));
  CHECK(flag.code == 2);
  CHECK(flag.out.find("NH_REF_MAMBA_DECODE_STEP='maybe'") != std::string::npos);
  const Run missing = sh(std::string(NH_REF_GEN_PATH) + " --checkpoint " + f.dir + "/absent.ckpt");
  CHECK(missing.code == 2);
  CHECK(missing.out.find("CHECKPOINT_MISSING") != std::string::npos);
  sh("cp " + f.ckpt + " " + f.dir + "/bad.ckpt && printf 'X' | dd of=" + f.dir + "/bad.ckpt bs=1 seek=100000 conv=notrunc");
  const Run sha = sh(std::string(NH_REF_GEN_PATH) + " --checkpoint " + f.dir + "/bad.ckpt");
  CHECK(sha.code == 2);
  CHECK(sha.out.find("CHECKPOINT_SHA_MISMATCH") != std::string::npos);
  const Run golden = sh(f.gen("--golden " + f.dir + "/nope"));
  CHECK(golden.code == 2);
  CHECK(golden.out.find("REFUSING: golden ") != std::string::npos);
  std::ofstream(f.dir + "/broken.json") << "{\"schemaVersion\":1,";
  const Run broken = sh(f.gen("--golden " + f.dir + "/broken.json"));
  CHECK(broken.code == 2);
  const Run rev = sh(f.gen("--golden " + f.golden("otherrev", -1, std::string(64, 'a'))));
  CHECK(rev.code == 2);
  CHECK(rev.out.find("captured from checkpoint revision") != std::string::npos);
  const Run usage = sh(f.gen("--mode sideways"));
  CHECK(usage.code == 2);
  if (!cudaBuild()) {
    const Run dev = sh(f.gen("--golden " + g, "NH_REF_DEVICE_MAMBA=1"));
    CHECK(dev.code == 2);
    CHECK(dev.out.find("built without CUDA") != std::string::npos);
  }
}

TEST_CASE("driver: --load-only, --golden-info and a run without golden exit 0 having compared nothing") {
  DriverFixture f;
  const Run load = sh(f.gen("--load-only"));
  CHECK(load.code == 0);
  CHECK(load.out.find("STRICT PASS") == std::string::npos);
  const Run info = sh(std::string(NH_REF_GEN_PATH) + " --golden-info --golden " + f.golden("good"));
  CHECK(info.code == 0);
  CHECK(info.out.find("golden_width=8") != std::string::npos);
  const Run free = sh(f.gen("--prompt Hi --max-new 4"));
  CHECK(free.code == 0);
  CHECK(free.out.find("nothing compared") != std::string::npos);
  CHECK(free.out.find("TOKEN MATCH") == std::string::npos);
}

TEST_CASE("driver: ARM trace counters differ between the decode arms") {
  DriverFixture f;
  const std::string g = f.golden("good");
  const Run step = sh(f.gen("--golden " + g + " --events " + f.dir + "/ev.jsonl", "NH_REF_ARM_TRACE=1"));
  CHECK(step.code == 0);
  // tiny has 3 Mamba layers: one state-update row and one conv row per layer per decode step.
  CHECK(step.out.find("ARM step T=1 nd=1 np=0 state_update_rows=3 chunk_scan_calls=0 conv_update_rows=3 conv_fwd_calls=0") !=
        std::string::npos);
  const Run rescan = sh(f.gen("--golden " + g, "NH_REF_ARM_TRACE=1 NH_REF_MAMBA_DECODE_STEP=0"));
  CHECK(rescan.code == 0);
  CHECK(rescan.out.find("ARM step T=1 nd=1 np=0 state_update_rows=0 chunk_scan_calls=3 conv_update_rows=0 conv_fwd_calls=3") !=
        std::string::npos);
  std::ifstream ev(f.dir + "/ev.jsonl");
  std::string line, all;
  int lines = 0;
  while (std::getline(ev, line)) {
    ++lines;
    all += line + "\n";
  }
  // load_start, load_end, 2 x (prompt_start, 8 tokens, 8 counters, prompt_done), done
  CHECK(lines == 3 + 2 * (1 + 8 + 8 + 1));
  CHECK(all.find("{\"event\":\"load_start\",\"tNs\":\"") == 0);
  CHECK(all.find("\"event\":\"done\",\"tNs\":\"") != std::string::npos);
  CHECK(all.find("\"exitCode\":0}") != std::string::npos);
}
