// Process containment for nh-gate's legs: this process as the child subreaper (Linux prctl), and reaping
// the escaped descendants that re-parent to it. No NVML, no CUDA: it works on any Linux host.
#pragma once
#include <napi.h>

// setChildSubreaper() → {ok: true} | {ok: false, code: 'UNSUPPORTED' | 'PRCTL_FAILED', message}
Napi::Value SetChildSubreaper(const Napi::CallbackInfo& info);

// isChildSubreaper() → boolean (PR_GET_CHILD_SUBREAPER); false where the call is not supported.
Napi::Value IsChildSubreaper(const Napi::CallbackInfo& info);

// reapChild(pid) → true when a dead child was collected, false when it still runs or is not our child.
// Only for escaped descendants re-parented here: a pid Node spawned itself is Node's to wait for.
Napi::Value ReapChild(const Napi::CallbackInfo& info);
