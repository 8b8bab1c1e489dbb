#include "model.h"

#include <cstdio>
#include <stdexcept>

#include "counters.h"
#include "ops.h"

namespace nhref {

Model::Model(const Checkpoint& ck, EngineOptions opts) : cfg_(ck.config), opts_(opts) {
  const size_t n = cfg_.layers.size();
  mamba_.resize(n);
  attn_.resize(n);
  moe_.resize(n);
  mambaState_.resize(n);
  attnCache_.resize(n);
  device_.resize(n);
  embed_ = ck.get("embed.weight");
  normF_ = ck.get("norm_f.weight");
  lmHead_ = ck.get("lm_head.weight");
  for (size_t i = 0; i < n; ++i) {
    norms_.push_back(ck.get("layers." + std::to_string(i) + ".norm.weight"));
    const char kind = cfg_.layers[i];
    if (kind == 'M') {
      mamba_[i] = mambaWeights(ck, int(i));
      mambaState_[i].reset(cfg_);
    } else if (kind == 'A') {
      attn_[i] = attnWeights(ck, int(i));
    } else {
      moe_[i] = moeWeights(ck, int(i), cfg_);
    }
  }
  deviceAttn_.resize(n);
  deviceMoe_.resize(n);
  if (opts_.deviceForward && cudaBuild() && probeDevice().available && missingForwardOps().empty()) {
    for (size_t i = 0; i < n; ++i) {
      if (cfg_.layers[i] == 'A') deviceAttn_[i] = createDeviceAttention(cfg_, attn_[i]);
      if (cfg_.layers[i] == 'E') deviceMoe_[i] = createDeviceMoe(cfg_, moe_[i]);
    }
    deviceHead_ = createDeviceHead(cfg_, lmHead_);
  }
  if (!opts_.deviceMamba) return;
  const DeviceInfo dev = probeDevice();
  if (!dev.available) throw std::runtime_error("NH_REF_DEVICE_MAMBA=1 but no device arm can run: " + dev.why);
  refOps_ = missingDeviceOps();
  if (!refOps_.empty()) {
    // The portable reference tier: numerically correct, so it must announce itself.
    for (const std::string& op : refOps_)
      std::printf("[nh-ref reference-tier] op=%s device=%s has NO native kernel; running the PORTABLE fallback\n", op.c_str(),
                  dev.name.c_str());
    std::fflush(stdout);
    return;
  }
  for (size_t i = 0; i < n; ++i)
    if (cfg_.layers[i] == 'M') device_[i] = createDeviceMamba(cfg_, mamba_[i]);
}

void Model::mixer(size_t layer, const float* u, int T, float* out, bool isDecode) {
  const char kind = cfg_.layers[layer];
  const int D = cfg_.dModel;
  if (kind == 'M') {
    if (device_[layer]) {
      if (isDecode) device_[layer]->decode(u, out, opts_.decodeStep);
      else device_[layer]->prefill(u, T, out);
      armCounters().deviceBlocks += 1;
    } else {
      if (!refOps_.empty()) armCounters().referenceTierOps += int64_t(refOps_.size());
      if (isDecode) mambaDecode(cfg_, mamba_[layer], mambaState_[layer], u, out, opts_.decodeStep);
      else mambaPrefill(cfg_, mamba_[layer], mambaState_[layer], u, T, out);
    }
  } else if (kind == 'A') {
    for (int t = 0; t < T; ++t) {
      if (deviceAttn_[layer]) deviceAttn_[layer]->forward(u + size_t(t) * D, out + size_t(t) * D);
      else attnForward(cfg_, attn_[layer], attnCache_[layer], u + size_t(t) * D, out + size_t(t) * D);
    }
  } else {
    for (int t = 0; t < T; ++t) {
      if (deviceMoe_[layer]) deviceMoe_[layer]->forward(u + size_t(t) * D, out + size_t(t) * D);
      else moeForward(cfg_, moe_[layer], u + size_t(t) * D, out + size_t(t) * D);
    }
  }
}

std::vector<float> Model::logitsOf(const float* h) {
  std::vector<float> normed(cfg_.dModel), logits(cfg_.vocab);
  rmsnorm(h, normF_, normed.data(), cfg_.dModel, cfg_.normEps);
  if (deviceHead_) deviceHead_->logits(normed.data(), logits.data());
  else matvec(lmHead_, normed.data(), logits.data(), cfg_.vocab, cfg_.dModel);
  return logits;
}

std::vector<float> Model::prefill(const std::vector<int>& tokens) {
  const int T = int(tokens.size()), D = cfg_.dModel;
  if (T == 0) throw std::runtime_error("prefill over zero tokens");
  for (auto& c : attnCache_) c.reset();
  for (auto& a : deviceAttn_)
    if (a) a->reset();
  std::vector<float> h(size_t(T) * D), u(size_t(T) * D), out(size_t(T) * D);
  for (int t = 0; t < T; ++t)
    for (int d = 0; d < D; ++d) h[size_t(t) * D + d] = embed_[size_t(tokens[t]) * D + d];
  for (size_t i = 0; i < cfg_.layers.size(); ++i) {
    for (int t = 0; t < T; ++t) rmsnorm(h.data() + size_t(t) * D, norms_[i], u.data() + size_t(t) * D, D, cfg_.normEps);
    mixer(i, u.data(), T, out.data(), false);
    for (size_t k = 0; k < h.size(); ++k) h[k] += out[k];
  }
  return logitsOf(h.data() + size_t(T - 1) * D);
}

std::vector<float> Model::decode(int token) {
  const int D = cfg_.dModel;
  std::vector<float> h(embed_ + size_t(token) * D, embed_ + size_t(token + 1) * D), u(D), out(D);
  for (size_t i = 0; i < cfg_.layers.size(); ++i) {
    rmsnorm(h.data(), norms_[i], u.data(), D, cfg_.normEps);
    mixer(i, u.data(), 1, out.data(), true);
    for (int d = 0; d < D; ++d) h[d] += out[d];
  }
  return logitsOf(h.data());
}

const char* modeName(Mode m) { return m == Mode::Decode ? "decode" : "fresh-prefill"; }

std::vector<int> generate(Model& m, const std::vector<int>& prompt, int maxNew, Mode mode, const StepHook& onStep,
                          const TokenHook& onToken) {
  std::vector<int> out;
  if (maxNew <= 0) return out;
  std::vector<int> seq = prompt;
  std::vector<float> logits = m.prefill(seq);
  onStep(int(seq.size()), 0, int(seq.size()));
  for (int i = 0; i < maxNew; ++i) {
    if (i > 0) {
      if (mode == Mode::Decode) {
        logits = m.decode(out.back());
        onStep(1, 1, 0);
      } else {
        logits = m.prefill(seq);
        onStep(int(seq.size()), 0, int(seq.size()));
      }
    }
    const int tok = argmax(logits.data(), int(logits.size()));
    out.push_back(tok);
    seq.push_back(tok);
    onToken(i, tok);
  }
  return out;
}

}  // namespace nhref
