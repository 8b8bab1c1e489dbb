// config.h — the model's dimensions and the preset table (authoritative per MODEL.md), plus the
// tensor list every checkpoint must hold, so writer, reader and tests agree on one list.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "json.h"

namespace nhref {

// MODEL.md "Config": one struct, read from the checkpoint header at load.
struct Config {
  int vocab = 256;
  int dModel = 0;
  std::string layers;
  double normEps = 1e-5;
  int mHeads = 0, mHeadDim = 0, mGroups = 0, mState = 0, mConv = 0, mChunk = 0;
  int aHeads = 0, aKvHeads = 0, aHeadDim = 0;
  int eExperts = 0, eTopK = 0, eFf = 0;

  int dInner() const { return mHeads * mHeadDim; }
  int headsPerGroup() const { return mHeads / mGroups; }
  int convChannels() const { return dInner() + 2 * mGroups * mState; }
  int inProjRows() const { return 2 * dInner() + 2 * mGroups * mState + mHeads; }
};

// One named preset: its config, generator seed, and the pinned content sha256 of its checkpoint.
struct Preset {
  std::string name;
  uint64_t seed;
  Config config;
  std::string pinnedSha256;
};

// The presets table; nullptr when the name is unknown.
const Preset* findPreset(const std::string& name);
// Names, for messages ("known presets: tiny, medium").
std::string presetNames();

// One tensor of the checkpoint with its generator init (value = offset + scale * u, u in [-1, 1)).
struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  float offset;
  float scale;
  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
};

// Every tensor MODEL.md requires for this config, in file order.
std::vector<TensorSpec> tensorSpecs(const Config& c);

// Config <-> header JSON (MODEL.md clarification 1 keys).
std::string configToJson(const Config& c);
Config configFromJson(const Json& j, const std::string& path);
// Cross-field rules (H % G, heads per group > 1, Hq % Hkv, topK <= E); empty when fine.
std::string configProblem(const Config& c);

}  // namespace nhref
