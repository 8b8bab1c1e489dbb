import type { Gate } from '../../config/gate.js';
import { NhGateError } from '../../errors.js';
import type { Deviation } from '../../results/comparison.js';

// A pre-registered design bent from the command line is recorded, never silent (issue 21): each option that
// departs from what the gate registered (repeats, order, seed, arms, budget, warm-up, mode, arch) becomes a deviation in
// the result and on the verdict line; a gate with "locked": true refuses them (exit 2, naming the option).

export type { Deviation };

// What the command line chose; undefined where it chose nothing (the gate's value stands).
export interface DesignChoices {
  repeats?: number | undefined;
  order?: 'abba' | 'random' | undefined;
  seed?: number | undefined;
  arms?: { A: string; B: string } | undefined;
  budgetLegs?: number | undefined;
  warmupLegs?: number | undefined;
  mode?: 'decode' | 'fresh-prefill' | undefined;
  // --arch: the silicon the gate was registered for (a gate without "arch" registered none, and any --arch stands).
  arch?: string | undefined;
}

// The design a gate registered, with the defaults it implies (a gate without arms registered off/on).
export function registeredDesign(g: Gate): Required<DesignChoices> {
  return {
    repeats: g.repeats, order: g.order, seed: g.seed ?? 1, arms: g.arms ?? { A: 'off', B: 'on' },
    budgetLegs: g.sequential?.maxLegs ?? Number.NaN, warmupLegs: g.warmupLegs ?? 0,
    mode: g.mode === 'both' ? 'decode' : g.mode, arch: g.arch ?? '',
  };
}

const OPTIONS: Record<keyof DesignChoices, { option: string; field: string }> = {
  repeats: { option: '--repeats', field: 'repeats' },
  order: { option: '--order', field: 'order' },
  seed: { option: '--seed', field: 'seed' },
  arms: { option: '--flag NAME=A,B', field: 'arms' },
  budgetLegs: { option: '--budget', field: 'sequential.maxLegs' },
  warmupLegs: { option: '--warmup', field: 'warmupLegs' },
  mode: { option: '--mode', field: 'mode' },
  arch: { option: '--arch', field: 'arch' },
};

const show = (v: unknown): string => (typeof v === 'object' && v !== null ? Object.entries(v).map(([k, x]) => `${k}=${String(x)}`).join(',') : String(v));

// Every command-line choice that differs from the gate's registered design (none without a gate).
export function deviationsOf(gate: Gate | null, cli: DesignChoices): Deviation[] {
  if (!gate) return [];
  const reg = registeredDesign(gate);
  const out: Deviation[] = [];
  for (const k of Object.keys(OPTIONS) as Array<keyof DesignChoices>) {
    const given = cli[k];
    if (given === undefined || show(given) === show(reg[k]) || reg[k] === '') continue;
    const { option, field } = OPTIONS[k];
    const registered = Number.isNaN(reg[k]) ? 'nothing' : show(reg[k]);
    out.push({ option, field, registered, given: show(given), text: `${option} ${show(given)} departs from the gate's registered ${field} ${registered}` });
  }
  return out;
}

// A locked gate runs only as registered: the first deviation is a usage error naming the option.
export function refuseIfLocked(gate: { gate: Gate; path: string } | null, deviations: readonly Deviation[]): void {
  const d = deviations[0];
  if (!gate?.gate.locked || !d) return;
  const all = deviations.map((x) => x.option).join(', ');
  throw new NhGateError('BAD_INPUT', `${gate.path}: the gate is locked ("locked": true) and ${d.text}`, `drop ${all}, or run a copy of the gate without "locked" (its sha256 then names the new design)`);
}
