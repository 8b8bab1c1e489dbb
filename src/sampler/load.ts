// Loads nh_nvml.node in one place and turns a missing, broken or stale addon into a stated reason.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXPECTED_ABI_VERSION, type NativeBinding } from './binding.js';

// Where scripts/build-addon.mjs puts the addon, relative to the package root (src/ and dist/ are both one level in).
export const DEFAULT_ADDON_PATH = fileURLToPath(new URL('../../native/addon/build/Release/nh_nvml.node', import.meta.url));

export type AddonLoad = { ok: true; binding: NativeBinding; path: string } | { ok: false; reason: string; path: string };

let cached: AddonLoad | null = null;

// The addon, or why it cannot be used ("native sampler unavailable: <reason>"). NH_GATE_ADDON overrides the path.
export function loadAddon(): AddonLoad {
  if (cached) return cached;
  cached = loadFrom(process.env.NH_GATE_ADDON || DEFAULT_ADDON_PATH);
  return cached;
}

// Loads a given .node file (exported for tests that point at a broken one).
export function loadFrom(path: string): AddonLoad {
  if (!existsSync(path)) {
    return { ok: false, path, reason: `${path} does not exist (the install step could not build it; run 'node scripts/build-addon.mjs' to see why)` };
  }
  try {
    const binding = createRequire(import.meta.url)(path) as NativeBinding;
    if (binding.abiVersion !== EXPECTED_ABI_VERSION) {
      return { ok: false, path, reason: `${path} is ABI ${String(binding.abiVersion)}, this nh-gate expects ${EXPECTED_ABI_VERSION}: rebuild with 'node scripts/build-addon.mjs'` };
    }
    return { ok: true, binding, path };
  } catch (err) {
    const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { ok: false, path, reason: `${path} failed to load: ${msg}` };
  }
}

// The one sentence every caller prints when the addon is missing.
export function unavailableLine(reason: string): string {
  return `native sampler unavailable: ${reason}`;
}
