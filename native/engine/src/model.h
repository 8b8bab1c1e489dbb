// model.h — the whole decoder (MODEL.md "Forward" and "Generation") over the host and device arms.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attention.h"
#include "checkpoint.h"
#include "device.h"
#include "mamba.h"
#include "moe.h"

namespace nhref {

// The arms, as chosen by the runtime flags (flags.h).
struct EngineOptions {
  bool decodeStep = true;    // NH_REF_MAMBA_DECODE_STEP
  bool deviceMamba = false;  // NH_REF_DEVICE_MAMBA
  bool deviceForward = true; // NH_REF_DEVICE_FORWARD: attention/MoE/head on the GPU of a CUDA build (both arms)
};

class Model {
 public:
  // Keeps pointers into ck's bytes: ck must outlive the model. Throws std::runtime_error when the
  // device arm cannot start (the driver refuses by name).
  Model(const Checkpoint& ck, EngineOptions opts);
  // A fresh prefill over tokens (all state reset); returns the last position's logits.
  std::vector<float> prefill(const std::vector<int>& tokens);
  // One decode step for the next token; returns its logits.
  std::vector<float> decode(int token);
  const Config& config() const { return cfg_; }
  // Ops the device arm could not run natively on this GPU (already announced on stderr/stdout).
  const std::vector<std::string>& referenceTierOps() const { return refOps_; }
  // Whether attention, MoE and the head run on the device (a CUDA build with a usable GPU, either arm).
  bool forwardOnDevice() const { return deviceHead_ != nullptr; }

 private:
  void mixer(size_t layer, const float* u, int T, float* out, bool isDecode);
  std::vector<float> logitsOf(const float* h);

  Config cfg_;
  EngineOptions opts_;
  std::vector<MambaWeights> mamba_;
  std::vector<AttnWeights> attn_;
  std::vector<MoeWeights> moe_;
  std::vector<MambaState> mambaState_;
  std::vector<AttnCache> attnCache_;
  std::vector<std::unique_ptr<DeviceMamba>> device_;
  // Attention, MoE and the head on the device whenever this is a CUDA build with a usable GPU (both arms).
  std::vector<std::unique_ptr<DeviceAttention>> deviceAttn_;
  std::vector<std::unique_ptr<DeviceMoe>> deviceMoe_;
  std::unique_ptr<DeviceHead> deviceHead_;
  std::vector<std::string> refOps_;
  std::vector<const float*> norms_;  // layers.i.norm.weight, looked up once
  const float* embed_ = nullptr;
  const float* normF_ = nullptr;
  const float* lmHead_ = nullptr;
};

// Which generation mode: decode (one prefill, then decode steps) or fresh-prefill (a new prefill per token).
enum class Mode { Decode, FreshPrefill };
const char* modeName(Mode m);

// Called after each step with its rows: T, decode rows, prefill rows.
using StepHook = std::function<void(int T, int nd, int np)>;
// Called after each generated token (index, token).
using TokenHook = std::function<void(int index, int token)>;

// Greedy generation of exactly maxNew tokens (no stop token).
std::vector<int> generate(Model& m, const std::vector<int>& prompt, int maxNew, Mode mode, const StepHook& onStep,
                          const TokenHook& onToken);

}  // namespace nhref
