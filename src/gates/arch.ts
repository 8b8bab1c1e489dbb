import type { Recipe } from '../config/recipe.js';
import { hostArchKey, type Silicon } from '../silicon/types.js';
import { archClaimKey } from '../quantity/compare.js';

// --arch is a claim about the target silicon, checked against what the host is. A claim the host cannot
// honour is VOID (NO_SUCH_SILICON) by name; it is never quietly turned into a CPU run.
export type ArchCheck = { ok: true; arch: string; note: string | null } | { ok: false; arch: string; message: string; usage?: boolean };

function describe(s: Silicon): string {
  return s.kind === 'gpu' ? `${s.gpuName} (compute capability ${s.computeCapability}, ${s.smArch})` : `no GPU (CPU ${s.cpuModel})`;
}

// The arch to build and run: the claim when given (checked), else the host's own (cpu without a GPU).
export function checkArch(claim: string | undefined, silicon: Silicon, recipe: Recipe): ArchCheck {
  if (claim === undefined) {
    if (silicon.kind !== 'gpu') return { ok: true, arch: 'cpu', note: 'no GPU on this host: arch cpu' };
    const candidates = [...new Set([hostArchKey(silicon), silicon.archTarget].filter((a): a is string => !!a && a !== 'gpu'))];
    const hit = candidates.find((a) => a in recipe.archs);
    if (hit) return { ok: true, arch: hit, note: `arch ${hit} from the host's ${describe(silicon)}` };
    return { ok: true, arch: 'cpu', note: `recipe '${recipe.name}' has no build for this host's ${candidates.join('/')}; running arch cpu — pass --arch to claim a device build` };
  }
  const key = archClaimKey(claim);
  if (key === null) return { ok: false, arch: claim, usage: true, message: `--arch ${claim} is not an arch claim nh-gate understands (e.g. 121a, 90, 110, cpu)` };
  if (key === 'cpu') return { ok: true, arch: 'cpu', note: null };
  if (silicon.kind !== 'gpu') return { ok: false, arch: claim, message: `--arch ${claim} claims compute capability ${key.slice(2)}, but this host has ${describe(silicon)} — no such silicon here; nothing was run on the CPU in its place` };
  const hostKey = `cc${silicon.computeCapability}`;
  if (key !== hostKey) return { ok: false, arch: claim, message: `--arch ${claim} claims compute capability ${key.slice(2)}, but this host has ${describe(silicon)} — no such silicon here` };
  return { ok: true, arch: claim, note: null };
}
