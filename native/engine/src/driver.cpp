#include "driver.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "checkpoint.h"
#include "counters.h"
#include "events.h"
#include "flags.h"
#include "golden.h"
#include "json.h"
#include "model.h"

namespace nhref {
namespace {

void say(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fputs("[nh-ref] ", stdout);
  std::vprintf(fmt, ap);
  std::fputc('\n', stdout);
  std::fflush(stdout);
  va_end(ap);
}

std::string joinTokens(const std::vector<int>& t) {
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) out += (i ? " " : "") + std::to_string(t[i]);
  return out;
}

int parseCount(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0 || n < 0 || n > 1000000)
    throw std::invalid_argument(flag + " '" + v + "' is not a non-negative integer");
  return int(n);
}

// One prompt to run: its tokens and, with a golden, the tokens to compare against.
struct Job {
  int id;
  std::vector<int> prompt;
  const std::vector<int>* expected;
};

// The totals of one mode's rows.
struct ModeTally {
  int compared = 0, matched = 0, fullRows = 0, shortRows = 0, firstBadPrompt = -1, firstBadIndex = -1;
};

}  // namespace

DriverArgs parseDriverArgs(const std::vector<std::string>& argv) {
  DriverArgs a;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argv.size()) throw std::invalid_argument(k + " needs a value");
      return argv[++i];
    };
    if (k == "--checkpoint") a.checkpoint = value();
    else if (k == "--preset") a.preset = value();
    else if (k == "--golden") a.golden = value();
    else if (k == "--events") a.events = value();
    else if (k == "--prompt") a.prompts.push_back(value());
    else if (k == "--max-new") a.maxNew = parseCount(k, value());
    else if (k == "--mode") {
      const std::string m = value();
      if (m == "decode" || m == "fresh-prefill") a.modes = {m};
      else if (m == "both") a.modes = {"decode", "fresh-prefill"};
      else throw std::invalid_argument("--mode '" + m + "' is not one of decode, fresh-prefill, both");
    } else if (k == "--load-only") a.loadOnly = true;
    else if (k == "--golden-info") a.goldenInfo = true;
    else if (k == "--help" || k == "-h") a.help = true;
    else throw std::invalid_argument("unknown argument '" + k + "'");
  }
  if (a.help) return a;
  if (a.goldenInfo && a.golden.empty()) throw std::invalid_argument("--golden-info needs --golden DIR|FILE");
  if (!a.goldenInfo && a.checkpoint.empty()) throw std::invalid_argument("--checkpoint FILE is required");
  if (!a.golden.empty() && !a.prompts.empty()) throw std::invalid_argument("--prompt and --golden are exclusive: the golden carries its prompts");
  for (const std::string& p : a.prompts)
    if (p.empty()) throw std::invalid_argument("--prompt '' has no tokens");
  return a;
}

int runDriver(const DriverArgs& args) {
  if (args.help) {
    say("usage: nh-ref-gen --checkpoint FILE [--preset P] [--golden DIR|FILE] [--prompt TEXT]... [--max-new N] "
        "[--mode decode|fresh-prefill|both] [--events FILE] [--load-only] [--golden-info]");
    return kExitPass;
  }
  EventSink events;
  if (!args.events.empty() && !events.open(args.events)) {
    say("REFUSING: --events %s: cannot open for writing (%s)", args.events.c_str(), std::strerror(errno));
    return kExitUsage;
  }
  auto finish = [&](int code) {
    events.emit("done", "\"exitCode\":" + std::to_string(code));
    return code;
  };

  RunFlags flags;
  try {
    flags = readFlags([](const char* n) { return std::getenv(n); });
  } catch (const FlagError& e) {
    say("REFUSING: %s", e.what());
    return finish(kExitUsage);
  }
  if (flags.engine.deviceMamba && !cudaBuild()) {
    say("REFUSING: NH_REF_DEVICE_MAMBA=1 but %s", probeDevice().why.c_str());
    return finish(kExitUsage);
  }

  Golden golden;
  const bool haveGolden = !args.golden.empty();
  if (haveGolden) {
    try {
      golden = loadGolden(args.golden);
    } catch (const GoldenError& e) {
      say("REFUSING: %s", e.what());
      return finish(kExitUsage);
    }
  }
  if (args.goldenInfo) {
    say("golden %s: name=%s checkpoint_revision=%s max_new_tokens=%d prompts=%zu", golden.path.c_str(), golden.name.c_str(),
        golden.checkpointRevision.c_str(), golden.maxNewTokens, golden.prompts.size());
    for (const GoldenPrompt& p : golden.prompts)
      say("golden prompt %d: prompt_tokens=%zu golden_width=%zu", p.id, p.promptTokens.size(), p.tokens.size());
    say("golden-info: nothing compared");
    return finish(kExitPass);
  }

  const uint64_t loadStart = monotonicNs();
  events.emit("load_start", "");
  Checkpoint ck;
  std::unique_ptr<Model> model;
  try {
    ck = loadCheckpoint(args.checkpoint, args.preset);
  } catch (const CheckpointError& e) {
    say("REFUSING: %s (%s)", e.what(), e.code.c_str());
    return finish(kExitUsage);
  }
  if (haveGolden && golden.checkpointRevision != ck.sha256) {
    say("REFUSING: golden %s was captured from checkpoint revision %s but %s has sha256 %s — use the golden of this checkpoint",
        golden.path.c_str(), golden.checkpointRevision.c_str(), ck.path.c_str(), ck.sha256.c_str());
    return finish(kExitUsage);
  }
  try {
    model = std::make_unique<Model>(ck, flags.engine);
  } catch (const std::runtime_error& e) {
    say("REFUSING: %s", e.what());
    return finish(kExitUsage);
  }
  const double loadS = double(monotonicNs() - loadStart) / 1e9;
  events.emit("load_end", "\"loadS\":" + std::to_string(loadS));
  say("engine loaded in %.2fs", loadS);
  say("checkpoint %s preset=%s sha256=%s arms: MAMBA_DECODE_STEP=%d DEVICE_MAMBA=%d", ck.path.c_str(), ck.preset.c_str(),
      ck.sha256.c_str(), flags.engine.decodeStep ? 1 : 0, flags.engine.deviceMamba ? 1 : 0);
  say("forward: attention, MoE and lm_head on the %s; Mamba blocks on the %s", model->forwardOnDevice() ? "device" : "host",
      flags.engine.deviceMamba ? "device" : "host");
  if (args.loadOnly) {
    say("load-only: nothing compared");
    return finish(kExitPass);
  }

  std::vector<Job> jobs;
  if (haveGolden) {
    for (const GoldenPrompt& p : golden.prompts) jobs.push_back({p.id, p.promptTokens, &p.tokens});
  } else {
    const std::vector<std::string> texts = args.prompts.empty() ? std::vector<std::string>{"Hello"} : args.prompts;
    for (size_t i = 0; i < texts.size(); ++i) {
      std::vector<int> toks;
      for (unsigned char ch : texts[i]) toks.push_back(int(ch));
      jobs.push_back({int(i), toks, nullptr});
    }
  }

  int step = 0;
  std::vector<ModeTally> tallies;
  for (const std::string& modeText : args.modes) {
    const Mode mode = modeText == "decode" ? Mode::Decode : Mode::FreshPrefill;
    ModeTally tally;
    const uint64_t modeStart = monotonicNs();
    int modeTokens = 0;
    for (const Job& job : jobs) {
      const int width = job.expected ? int(job.expected->size()) : 0;
      const int maxNew = args.maxNew >= 0 ? args.maxNew : (haveGolden ? width : 32);
      events.emit("prompt_start", "\"prompt\":" + std::to_string(job.id) + ",\"promptTokens\":" + std::to_string(job.prompt.size()) +
                                      ",\"mode\":\"" + modeText + "\"");
      const uint64_t t0 = monotonicNs();
      armCounters() = ArmCounters{};
      const std::vector<int> got = generate(
          *model, job.prompt, maxNew, mode,
          [&](int T, int nd, int np) {
            const ArmCounters c = armCounters();
            armCounters() = ArmCounters{};
            ++step;
            if (!flags.armTrace) return;
            std::printf("ARM step T=%d nd=%d np=%d state_update_rows=%lld chunk_scan_calls=%lld conv_update_rows=%lld "
                        "conv_fwd_calls=%lld device_blocks=%lld reference_tier_ops=%lld device_forward_blocks=%lld\n",
                        T, nd, np, (long long)c.stateUpdateRows, (long long)c.chunkScanCalls, (long long)c.convUpdateRows,
                        (long long)c.convFwdCalls, (long long)c.deviceBlocks, (long long)c.referenceTierOps,
                        (long long)c.deviceForwardBlocks);
            std::fflush(stdout);
            events.emit("counters", "\"step\":" + std::to_string(step) + ",\"fields\":" +
                                        countersJson({{"T", T}, {"nd", nd}, {"np", np},
                                                      {"state_update_rows", c.stateUpdateRows},
                                                      {"chunk_scan_calls", c.chunkScanCalls},
                                                      {"conv_update_rows", c.convUpdateRows},
                                                      {"conv_fwd_calls", c.convFwdCalls},
                                                      {"device_blocks", c.deviceBlocks},
                                                      {"reference_tier_ops", c.referenceTierOps},
                                                      {"device_forward_blocks", c.deviceForwardBlocks}}));
          },
          [&](int index, int token) {
            events.emit("token", "\"prompt\":" + std::to_string(job.id) + ",\"index\":" + std::to_string(index) +
                                     ",\"token\":" + std::to_string(token) + ",\"mode\":\"" + modeText + "\"");
          });
      const double wallS = double(monotonicNs() - t0) / 1e9;
      modeTokens += int(got.size());
      events.emit("prompt_done", "\"prompt\":" + std::to_string(job.id) + ",\"generated\":" + std::to_string(got.size()) +
                                     ",\"mode\":\"" + modeText + "\"");
      if (!job.expected) {
        say("prompt %d: prompt_tokens=%zu generated=%zu wall=%.4fs", job.id, job.prompt.size(), got.size(), wallS);
        say("  tokens: %s", joinTokens(got).c_str());
        continue;
      }
      const int compared = std::min(int(got.size()), width);
      int matched = 0, firstBad = -1;
      for (int i = 0; i < compared; ++i) {
        if (got[i] == (*job.expected)[i]) ++matched;
        else if (firstBad < 0) firstBad = i;
      }
      const bool shortRow = int(got.size()) < width;
      say("prompt %d: prompt_tokens=%zu generated=%zu golden_width=%d compared=%d matched=%d wall=%.4fs%s", job.id, job.prompt.size(),
          got.size(), width, compared, matched, wallS, shortRow ? " <-- SHORT RUN" : "");
      if (matched < compared) {
        say("  got: %s", joinTokens(got).c_str());
        say("  exp: %s", joinTokens(*job.expected).c_str());
        say("  first mismatch at index %d", firstBad);
        if (tally.firstBadPrompt < 0) {
          tally.firstBadPrompt = job.id;
          tally.firstBadIndex = firstBad;
        }
      }
      tally.compared += compared;
      tally.matched += matched;
      (shortRow ? tally.shortRows : tally.fullRows) += 1;
    }
    const double modeS = double(monotonicNs() - modeStart) / 1e9;
    say("timing: mode=%s generated=%d wall=%.4fs per_token=%.6fs", modeText.c_str(), modeTokens, modeS,
        modeTokens > 0 ? modeS / modeTokens : 0.0);
    if (haveGolden)
      say("TOKEN MATCH: %d/%d over %zu prompt(s) (full rows=%d, short rows=%d, mode=%s)", tally.matched, tally.compared, jobs.size(),
          tally.fullRows, tally.shortRows, modeText.c_str());
    tallies.push_back(tally);
  }

  if (!model->referenceTierOps().empty())
    say("note: %zu device op(s) had no native kernel and ran the PORTABLE fallback (banners above); not a device result",
        model->referenceTierOps().size());
  if (!haveGolden) {
    say("no golden: nothing compared");
    return finish(kExitPass);
  }
  int compared = 0, matched = 0, shortRows = 0;
  for (const ModeTally& t : tallies) {
    compared += t.compared;
    matched += t.matched;
    shortRows += t.shortRows;
  }
  if (matched < compared) {
    for (size_t i = 0; i < tallies.size(); ++i)
      if (tallies[i].firstBadPrompt >= 0)
        say("DIVERGENCE: %d/%d tokens matched; first mismatch prompt %d index %d (mode=%s)", matched, compared, tallies[i].firstBadPrompt,
            tallies[i].firstBadIndex, args.modes[i].c_str());
    return finish(kExitDivergence);
  }
  if (compared == 0) {
    say("REFUSING: zero tokens compared — there is nothing to judge");
    return finish(kExitZeroCompared);
  }
  if (shortRows > 0) {
    say("SHORT: %d row(s) generated fewer tokens than the golden width; %d/%d compared tokens matched", shortRows, matched, compared);
    return finish(kExitShort);
  }
  say("STRICT PASS");
  return finish(kExitPass);
}

}  // namespace nhref
