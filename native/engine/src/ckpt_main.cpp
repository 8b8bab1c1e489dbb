// nh-ref-ckpt — writes a preset's checkpoint and checks it against the pinned sha256.
#include <cstdio>
#include <cstring>
#include <string>

#include "checkpoint.h"
#include "sha256.h"

int main(int argc, char** argv) {
  std::string preset, out;
  bool printOnly = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--preset" && i + 1 < argc) preset = argv[++i];
    else if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--print-sha") printOnly = true;
    else {
      std::fprintf(stderr, "[nh-ref-ckpt] usage: nh-ref-ckpt --preset <%s> (--out FILE | --print-sha); unknown argument '%s'\n",
                   nhref::presetNames().c_str(), a.c_str());
      return 2;
    }
  }
  const nhref::Preset* p = nhref::findPreset(preset);
  if (!p) {
    std::fprintf(stderr, "[nh-ref-ckpt] REFUSING: --preset '%s' is not known (known: %s)\n", preset.c_str(), nhref::presetNames().c_str());
    return 2;
  }
  if (out.empty() && !printOnly) {
    std::fprintf(stderr, "[nh-ref-ckpt] usage: --out FILE is required (or --print-sha)\n");
    return 2;
  }
  std::vector<uint8_t> bytes = nhref::generateCheckpoint(*p);
  const std::string sha = nhref::sha256Hex(bytes.data(), bytes.size());
  if (printOnly) {
    std::printf("%s %s %zu\n", p->name.c_str(), sha.c_str(), bytes.size());
    return 0;
  }
  if (sha != p->pinnedSha256) {
    std::fprintf(stderr, "[nh-ref-ckpt] REFUSING: generated preset '%s' has sha256 %s but the engine pins %s — this host's float arithmetic differs; nothing written\n",
                 p->name.c_str(), sha.c_str(), p->pinnedSha256.c_str());
    return 1;
  }
  try {
    nhref::writeFileAtomic(out, bytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[nh-ref-ckpt] REFUSING: %s\n", e.what());
    return 2;
  }
  std::printf("[nh-ref-ckpt] wrote %s preset=%s bytes=%zu sha256=%s\n", out.c_str(), p->name.c_str(), bytes.size(), sha.c_str());
  return 0;
}
