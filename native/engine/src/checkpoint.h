// checkpoint.h — the NHREFCK1 file (MODEL.md): deterministic generation from a preset's seed,
// and a loader that refuses by name anything but the pinned content.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "config.h"

namespace nhref {

// Why a checkpoint was refused; `code` is stable (CHECKPOINT_MISSING, CHECKPOINT_CORRUPT, CHECKPOINT_SHA_MISMATCH, ...).
struct CheckpointError : std::runtime_error {
  std::string code;
  CheckpointError(std::string c, const std::string& msg) : std::runtime_error(msg), code(std::move(c)) {}
};

// A view of one tensor inside the loaded file.
struct TensorView {
  const float* data = nullptr;
  std::vector<int64_t> shape;
};

// A loaded, verified checkpoint: owns the bytes, tensors point into them.
struct Checkpoint {
  std::string path;
  std::string preset;
  uint64_t seed = 0;
  std::string sha256;
  Config config;
  std::vector<uint8_t> bytes;
  std::map<std::string, TensorView> tensors;

  const float* get(const std::string& name) const;
};

// The SplitMix64 stream the generator draws from: fully specified integer arithmetic,
// so the file is bit-identical on every host.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Top 24 bits as an exact float in [-1, 1).
  float uniform() { return (float(int32_t(next() >> 40)) - 8388608.0f) * (1.0f / 8388608.0f); }
};

// The checkpoint bytes for a preset (header + padding + data), identical on every host.
std::vector<uint8_t> generateCheckpoint(const Preset& preset);

// Loads and verifies: magic, header, preset known (and equal to expectPreset when non-empty),
// content sha256 equal to the preset's pin, every tensor present with its shape and in bounds.
Checkpoint loadCheckpoint(const std::string& path, const std::string& expectPreset);

// Same checks over bytes already in memory (tests use this to corrupt copies).
Checkpoint parseCheckpoint(std::vector<uint8_t> bytes, const std::string& path, const std::string& expectPreset);

// Writes bytes to path atomically (temp file + rename), so a concurrent reader never sees half a file.
void writeFileAtomic(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace nhref
