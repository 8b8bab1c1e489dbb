#include "config.h"

#include <cmath>
#include <sstream>

namespace nhref {
namespace {

Config tinyConfig() {
  Config c;
  c.dModel = 64;
  c.layers = "MAMEMA";
  c.mHeads = 16; c.mHeadDim = 8; c.mGroups = 4; c.mState = 16; c.mConv = 4; c.mChunk = 8;
  c.aHeads = 4; c.aKvHeads = 2; c.aHeadDim = 16;
  c.eExperts = 8; c.eTopK = 2; c.eFf = 64;
  return c;
}

Config mediumConfig() {
  Config c;
  c.dModel = 1024;
  c.layers = "MMAMEMMAME";
  c.mHeads = 32; c.mHeadDim = 64; c.mGroups = 4; c.mState = 64; c.mConv = 4; c.mChunk = 64;
  c.aHeads = 16; c.aKvHeads = 4; c.aHeadDim = 64;
  c.eExperts = 8; c.eTopK = 2; c.eFf = 512;
  return c;
}

const std::vector<Preset>& presets() {
  static const std::vector<Preset> table = {
      {"tiny", 3003, tinyConfig(), "c345affd35095a88eb323c8d9f0a48b0ff8c89d0f34df680a457fe080202f628"},
      {"medium", 3004, mediumConfig(), "c476b62c147e599c54a01b6e21a8db321bf6fc5538d9059264a4e50d1e06570e"},
  };
  return table;
}

// uniform(-1,1) * gain * sqrt(3 / fanIn) has standard deviation gain / sqrt(fanIn).
float fanScale(double gain, int fanIn) { return float(gain * std::sqrt(3.0 / double(fanIn))); }

}  // namespace

const Preset* findPreset(const std::string& name) {
  for (const Preset& p : presets())
    if (p.name == name) return &p;
  return nullptr;
}

std::string presetNames() {
  std::string out;
  for (const Preset& p : presets()) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

std::vector<TensorSpec> tensorSpecs(const Config& c) {
  const int64_t D = c.dModel, V = c.vocab;
  std::vector<TensorSpec> t;
  t.push_back({"embed.weight", {V, D}, 0.0f, 1.0f});
  for (size_t i = 0; i < c.layers.size(); ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    t.push_back({p + "norm.weight", {D}, 1.0f, 0.1f});
    const char kind = c.layers[i];
    if (kind == 'M') {
      const int64_t dI = c.dInner(), C = c.convChannels(), H = c.mHeads;
      t.push_back({p + "mixer.in_proj.weight", {c.inProjRows(), D}, 0.0f, fanScale(1.0, c.dModel)});
      t.push_back({p + "mixer.conv1d.weight", {C, c.mConv}, 0.0f, 0.5f});
      t.push_back({p + "mixer.conv1d.bias", {C}, 0.0f, 0.2f});
      t.push_back({p + "mixer.dt_bias", {H}, -3.0f, 1.0f});   // softplus(-4..-2): dt ~ 0.02..0.13
      t.push_back({p + "mixer.A_log", {H}, 0.75f, 0.75f});     // A = -exp(0..1.5)
      t.push_back({p + "mixer.D", {H}, 1.0f, 0.5f});
      t.push_back({p + "mixer.norm.weight", {dI}, 1.0f, 0.1f});
      t.push_back({p + "mixer.out_proj.weight", {D, dI}, 0.0f, fanScale(1.0, c.dInner())});
    } else if (kind == 'A') {
      const int64_t q = int64_t(c.aHeads) * c.aHeadDim, kv = int64_t(c.aKvHeads) * c.aHeadDim;
      t.push_back({p + "mixer.q_proj.weight", {q, D}, 0.0f, fanScale(1.0, c.dModel)});
      t.push_back({p + "mixer.k_proj.weight", {kv, D}, 0.0f, fanScale(1.0, c.dModel)});
      t.push_back({p + "mixer.v_proj.weight", {kv, D}, 0.0f, fanScale(1.0, c.dModel)});
      t.push_back({p + "mixer.o_proj.weight", {D, q}, 0.0f, fanScale(1.0, int(q))});
    } else if (kind == 'E') {
      const int64_t E = c.eExperts, F = c.eFf;
      t.push_back({p + "mixer.router.weight", {E, D}, 0.0f, fanScale(1.0, c.dModel)});
      t.push_back({p + "mixer.router.e_score_correction_bias", {E}, 0.0f, 0.5f});
      for (int64_t e = 0; e < E; ++e) {
        const std::string ep = p + "mixer.experts." + std::to_string(e) + ".";
        t.push_back({ep + "up_proj.weight", {F, D}, 0.0f, fanScale(1.0, c.dModel)});
        t.push_back({ep + "down_proj.weight", {D, F}, 0.0f, fanScale(0.5, c.eFf)});
      }
    }
  }
  t.push_back({"norm_f.weight", {D}, 1.0f, 0.1f});
  // A large lm_head gain makes logits spread (std ~8 nats): the model is decisive, so float32
  // engines and the float64 oracle agree on the argmax at almost every position.
  t.push_back({"lm_head.weight", {V, D}, 0.0f, fanScale(8.0, c.dModel)});
  return t;
}

std::string configToJson(const Config& c) {
  std::ostringstream o;
  o << "{\"vocab\":" << c.vocab << ",\"dModel\":" << c.dModel << ",\"layers\":" << jsonQuote(c.layers)
    << ",\"normEps\":1e-05"
    << ",\"mamba\":{\"nHeads\":" << c.mHeads << ",\"headDim\":" << c.mHeadDim << ",\"nGroups\":" << c.mGroups
    << ",\"dState\":" << c.mState << ",\"convKernel\":" << c.mConv << ",\"chunkSize\":" << c.mChunk << "}"
    << ",\"attn\":{\"nHeads\":" << c.aHeads << ",\"nKvHeads\":" << c.aKvHeads << ",\"headDim\":" << c.aHeadDim << "}"
    << ",\"moe\":{\"nExperts\":" << c.eExperts << ",\"topK\":" << c.eTopK << ",\"dFf\":" << c.eFf << "}}";
  return o.str();
}

Config configFromJson(const Json& j, const std::string& path) {
  Config c;
  auto posInt = [&](const Json& obj, const std::string& key, const std::string& p) {
    long long v = obj.at(key, p).integer(p + "." + key);
    if (v <= 0 || v > (1 << 24)) throw JsonError(p + "." + key + " must be a positive integer, got " + std::to_string(v));
    return int(v);
  };
  c.vocab = posInt(j, "vocab", path);
  c.dModel = posInt(j, "dModel", path);
  c.layers = j.at("layers", path).string(path + ".layers");
  if (j.has("normEps")) c.normEps = j.at("normEps", path).number(path + ".normEps");
  if (j.has("mamba")) {
    const Json& m = j.at("mamba", path);
    const std::string p = path + ".mamba";
    c.mHeads = posInt(m, "nHeads", p); c.mHeadDim = posInt(m, "headDim", p); c.mGroups = posInt(m, "nGroups", p);
    c.mState = posInt(m, "dState", p); c.mConv = posInt(m, "convKernel", p); c.mChunk = posInt(m, "chunkSize", p);
  }
  if (j.has("attn")) {
    const Json& a = j.at("attn", path);
    const std::string p = path + ".attn";
    c.aHeads = posInt(a, "nHeads", p); c.aKvHeads = posInt(a, "nKvHeads", p); c.aHeadDim = posInt(a, "headDim", p);
  }
  if (j.has("moe")) {
    const Json& e = j.at("moe", path);
    const std::string p = path + ".moe";
    c.eExperts = posInt(e, "nExperts", p); c.eTopK = posInt(e, "topK", p); c.eFf = posInt(e, "dFf", p);
  }
  return c;
}

std::string configProblem(const Config& c) {
  if (c.layers.empty()) return "config.layers is empty";
  for (char k : c.layers)
    if (k != 'M' && k != 'A' && k != 'E') return std::string("config.layers has '") + k + "'; only M, A, E are blocks";
  if (c.layers.find('M') != std::string::npos) {
    if (c.mHeads == 0) return "layers has 'M' but config.mamba is missing";
    if (c.mHeads % c.mGroups != 0) return "config.mamba.nHeads is not a multiple of nGroups";
    if (c.mHeads / c.mGroups < 2) return "config.mamba heads per group must be > 1";
  }
  if (c.layers.find('A') != std::string::npos) {
    if (c.aHeads == 0) return "layers has 'A' but config.attn is missing";
    if (c.aHeads % c.aKvHeads != 0) return "config.attn.nHeads is not a multiple of nKvHeads";
  }
  if (c.layers.find('E') != std::string::npos) {
    if (c.eExperts == 0) return "layers has 'E' but config.moe is missing";
    if (c.eTopK > c.eExperts) return "config.moe.topK exceeds nExperts";
  }
  return "";
}

}  // namespace nhref
