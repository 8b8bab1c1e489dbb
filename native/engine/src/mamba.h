// mamba.h — the Mamba2 mixer (MODEL.md): causal conv, single-step state update, and the chunked
// (SSD) scan, which compute the same recurrence at very different cost.
#pragma once
#include <vector>

#include "checkpoint.h"
#include "config.h"

namespace nhref {

// The per-layer weights, pointers into the checkpoint (or into test buffers).
struct MambaWeights {
  const float* inProj = nullptr;   // [inProjRows, D]
  const float* convW = nullptr;    // [C, K]
  const float* convB = nullptr;    // [C]
  const float* dtBias = nullptr;   // [H]
  const float* aLog = nullptr;     // [H]
  const float* dSkip = nullptr;    // [H]
  const float* normW = nullptr;    // [dInner]
  const float* outProj = nullptr;  // [D, dInner]
};

MambaWeights mambaWeights(const Checkpoint& ck, int layer);

// The recurrent state of one Mamba layer for one sequence.
struct MambaState {
  std::vector<float> convWindow;  // [(K-1) * C]: the last K-1 xBC rows, oldest first
  std::vector<float> ssm;         // [H * P * N]: S[h][p][n]
  std::vector<float> inputs;      // [T * D]: the mixer inputs so far (the re-scan arm replays them)
  int positions = 0;
  void reset(const Config& c);
};

// One causal-conv row: reads the window and the new xBC row, writes silu(conv) to xc, shifts the window.
void convStep(const Config& c, const MambaWeights& w, float* window, const float* xBC, float* xc);
// The causal conv over T rows (rows before 0 are zero); leaves the last K-1 rows in windowOut.
void convForward(const Config& c, const MambaWeights& w, const float* xBC, int T, int rowStride, float* xc, float* windowOut);
// One recurrent update of S from one conv output row and its raw dt; writes y [dInner].
void ssmStep(const Config& c, const MambaWeights& w, float* S, const float* xc, const float* dtRaw, float* y);
// The chunked scan over T rows of xc [T][C] and dtRaw (row stride dtStride); S in = initial, out = final.
void chunkScan(const Config& c, const MambaWeights& w, const float* xc, const float* dtRaw, int dtStride, int T, float* S, float* y);

// The mixer over a whole sequence u [T][D] from a fresh state (prefill): out [T][D].
void mambaPrefill(const Config& c, const MambaWeights& w, MambaState& st, const float* u, int T, float* out);
// The mixer for one new position. decodeStep=true: single-step update; false: re-run the
// prefill path (in_proj, conv, chunked scan) over the whole prefix and keep its last row.
void mambaDecode(const Config& c, const MambaWeights& w, MambaState& st, const float* u, float* out, bool decodeStep);

}  // namespace nhref
