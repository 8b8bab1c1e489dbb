#include "checkpoint.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "sha256.h"

namespace nhref {
namespace {

const char kMagic[8] = {'N', 'H', 'R', 'E', 'F', 'C', 'K', '1'};

std::string shapeText(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

size_t alignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

}  // namespace

const float* Checkpoint::get(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) throw CheckpointError("CHECKPOINT_CORRUPT", "checkpoint " + path + ": tensor " + name + " is missing");
  return it->second.data;
}

std::vector<uint8_t> generateCheckpoint(const Preset& preset) {
  const std::vector<TensorSpec> specs = tensorSpecs(preset.config);
  std::ostringstream header;
  header << "{\"preset\":" << jsonQuote(preset.name) << ",\"seed\":" << preset.seed
         << ",\"config\":" << configToJson(preset.config) << ",\"tensors\":[";
  size_t offset = 0;
  std::vector<size_t> offsets;
  for (size_t i = 0; i < specs.size(); ++i) {
    offsets.push_back(offset);
    header << (i ? "," : "") << "{\"name\":" << jsonQuote(specs[i].name) << ",\"shape\":[";
    for (size_t d = 0; d < specs[i].shape.size(); ++d) header << (d ? "," : "") << specs[i].shape[d];
    header << "],\"offset\":" << offset << "}";
    offset = alignUp(offset + size_t(specs[i].count()) * 4, 64);
  }
  header << "]}";
  const std::string h = header.str();
  const size_t dataStart = alignUp(12 + h.size(), 64);
  std::vector<uint8_t> out(dataStart + offset, 0);
  std::memcpy(out.data(), kMagic, 8);
  const uint32_t lh = uint32_t(h.size());
  for (int b = 0; b < 4; ++b) out[8 + b] = uint8_t(lh >> (8 * b));
  std::memcpy(out.data() + 12, h.data(), h.size());
  SplitMix64 rng{preset.seed};
  for (size_t i = 0; i < specs.size(); ++i) {
    uint8_t* dst = out.data() + dataStart + offsets[i];
    for (int64_t k = 0; k < specs[i].count(); ++k) {
      // Two separately rounded float operations (built with -ffp-contract=off): no FMA, same bits everywhere.
      volatile float scaled = specs[i].scale * rng.uniform();
      float v = specs[i].offset + scaled;
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      for (int b = 0; b < 4; ++b) dst[4 * k + b] = uint8_t(bits >> (8 * b));
    }
  }
  return out;
}

Checkpoint parseCheckpoint(std::vector<uint8_t> bytes, const std::string& path, const std::string& expectPreset) {
  const std::string where = "checkpoint " + path;
  if (bytes.size() < 12 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    throw CheckpointError("CHECKPOINT_CORRUPT", where + ": not an nh-ref checkpoint (the first 8 bytes are not NHREFCK1) — regenerate it with nh-ref-ckpt --preset <name> --out " + path);
  uint32_t lh = 0;
  for (int b = 0; b < 4; ++b) lh |= uint32_t(bytes[8 + b]) << (8 * b);
  if (size_t(lh) + 12 > bytes.size())
    throw CheckpointError("CHECKPOINT_CORRUPT", where + ": header length " + std::to_string(lh) + " runs past the end of the file (truncated?) — regenerate it");
  Checkpoint ck;
  ck.path = path;
  Json header;
  try {
    header = parseJson(std::string(reinterpret_cast<const char*>(bytes.data()) + 12, lh));
    ck.preset = header.at("preset", "header").string("header.preset");
    ck.seed = uint64_t(header.at("seed", "header").integer("header.seed"));
    ck.config = configFromJson(header.at("config", "header"), "header.config");
  } catch (const JsonError& e) {
    throw CheckpointError("CHECKPOINT_CORRUPT", where + ": header is not valid: " + e.what() + " — regenerate it");
  }
  const Preset* preset = findPreset(ck.preset);
  if (!preset)
    throw CheckpointError("CHECKPOINT_UNKNOWN_PRESET", where + ": header.preset '" + ck.preset + "' is not a preset this engine pins (known: " + presetNames() + ")");
  if (!expectPreset.empty() && expectPreset != ck.preset)
    throw CheckpointError("CHECKPOINT_PRESET_MISMATCH", where + ": holds preset '" + ck.preset + "' but --preset " + expectPreset + " was asked for — pass the matching checkpoint");
  ck.sha256 = sha256Hex(bytes.data(), bytes.size());
  if (ck.sha256 != preset->pinnedSha256)
    throw CheckpointError("CHECKPOINT_SHA_MISMATCH", where + ": content sha256 " + ck.sha256 + " does not match the sha256 pinned for preset '" + ck.preset + "' (" + preset->pinnedSha256 + ") — the file is corrupt or from another engine version; regenerate it with nh-ref-ckpt --preset " + ck.preset + " --out " + path);
  const std::string problem = configProblem(ck.config);
  if (!problem.empty()) throw CheckpointError("CHECKPOINT_CORRUPT", where + ": " + problem);
  const size_t dataStart = alignUp(12 + size_t(lh), 64);
  std::map<std::string, std::vector<int64_t>> expected;
  for (const TensorSpec& s : tensorSpecs(ck.config)) expected[s.name] = s.shape;
  try {
    for (const Json& t : header.at("tensors", "header").array("header.tensors")) {
      const std::string name = t.at("name", "header.tensors[]").string("header.tensors[].name");
      std::vector<int64_t> shape;
      for (const Json& d : t.at("shape", name).array(name + ".shape")) shape.push_back(d.integer(name + ".shape[]"));
      const long long off = t.at("offset", name).integer(name + ".offset");
      auto want = expected.find(name);
      if (want == expected.end()) throw CheckpointError("CHECKPOINT_CORRUPT", where + ": unexpected tensor " + name);
      if (ck.tensors.count(name)) throw CheckpointError("CHECKPOINT_CORRUPT", where + ": tensor " + name + " is listed twice");
      if (want->second != shape)
        throw CheckpointError("CHECKPOINT_CORRUPT", where + ": tensor " + name + " has shape " + shapeText(shape) + ", expected " + shapeText(want->second));
      int64_t count = 1;
      for (int64_t d : shape) count *= d;
      if (off < 0 || off % 4 != 0 || dataStart + size_t(off) + size_t(count) * 4 > bytes.size())
        throw CheckpointError("CHECKPOINT_CORRUPT", where + ": tensor " + name + " at offset " + std::to_string(off) + " lies outside the data region");
      ck.tensors[name] = TensorView{nullptr, shape};
      ck.tensors[name].data = reinterpret_cast<const float*>(bytes.data() + dataStart + size_t(off));
    }
  } catch (const JsonError& e) {
    throw CheckpointError("CHECKPOINT_CORRUPT", where + ": tensor table is not valid: " + e.what());
  }
  for (const auto& kv : expected)
    if (!ck.tensors.count(kv.first)) throw CheckpointError("CHECKPOINT_CORRUPT", where + ": tensor " + kv.first + " is missing");
  // Moving a vector keeps its buffer, so the views stay valid.
  ck.bytes = std::move(bytes);
  return ck;
}

Checkpoint loadCheckpoint(const std::string& path, const std::string& expectPreset) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw CheckpointError("CHECKPOINT_MISSING", "checkpoint " + path + ": cannot open (" + std::strerror(errno) + ") — generate it with nh-ref-ckpt --preset " + (expectPreset.empty() ? std::string("tiny") : expectPreset) + " --out " + path);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parseCheckpoint(std::move(bytes), path, expectPreset);
}

void writeFileAtomic(const std::string& path, const std::vector<uint8_t>& bytes) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!out) throw std::runtime_error("short write to " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
  }
}

}  // namespace nhref
