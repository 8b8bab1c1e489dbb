import type { RunResult } from './types.js';

// What makes two runs' figures comparable, written into every ledger line so `history` fits together only
// runs of one kind: the gate, or (without one) the command, recipe, golden, arms and mode. A new user's
// two a3 runs and a gate-less flag A/B are three different things; one `(no gate)` series once fitted them
// together and called the A/B's slower arm a +152% regression of the a3. Silicon and metric are the
// other two parts of a series; the ledger line carries them already.

export interface SeriesKey {
  gate: string | null;
  command: string;
  recipe: string | null;
  golden: string | null;
  // One entry per arm, in the order the arms first ran: `A NH_REF_MAMBA_DECODE_STEP=0`, `single`, …
  arms: string[];
  modes: string[];
  // The measured command of a recipe-less run (`busy -- ./engine …`): what ran is what makes it comparable.
  target?: string;
}

// The environment an arm set, as one stable word: sorted NAME=value pairs.
function envText(env: Record<string, string>): string {
  const pairs = Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`);
  return pairs.length ? pairs.join(' ') : '(recipe defaults)';
}

// The series key of a finished run (pure). A cross-commit A/B names its arms by commit, never by sha:
// each change's head-over-base ratio is one point of the same series.
export function seriesKeyOf(r: RunResult): SeriesKey {
  const twoBinaries = r.comparison?.kind === 'ab' && r.comparison.binaries.kind === 'two';
  const arms: string[] = [];
  const seen = new Set<string>();
  for (const leg of r.legs) {
    if (seen.has(leg.arm)) continue;
    seen.add(leg.arm);
    if (leg.arm === 'single') arms.push('single');
    else arms.push(`${leg.arm} ${twoBinaries ? `${leg.arm === 'A' ? 'base' : 'head'} commit, ` : ''}${envText(leg.flagEnv)}`);
  }
  const modes = [...new Set(r.legs.map((l) => l.mode))].sort();
  const key: SeriesKey = { gate: r.gate?.name ?? null, command: r.command, recipe: r.recipe?.name ?? null, golden: r.golden?.name ?? null, arms, modes };
  // busy -- CMD records no legs: its command line after `--` is what ran.
  const dash = r.argv.indexOf('--');
  const argv = dash >= 0 ? r.argv.slice(dash + 1) : r.legs[0]?.process.argv;
  if (!key.recipe && argv?.length) key.target = argv.join(' ');
  return key;
}

// The key as one line for people: `gate g: ab nh-ref, golden nh-ref-tiny, arms A X=0 | B X=1, mode decode`.
export function seriesLabel(k: SeriesKey): string {
  const what = [`${k.command} ${k.recipe ?? k.target ?? '(no recipe)'}`];
  if (k.golden) what.push(`golden ${k.golden}`);
  if (k.arms.length) what.push(`arms ${k.arms.join(' | ')}`);
  if (k.modes.length) what.push(`mode ${k.modes.join('+')}`);
  return `${k.gate ? `gate ${k.gate}: ` : ''}${what.join(', ')}`;
}

// Whether a ledger line's `series` field is a key this reader understands (hand-checked: the ledger reader
// keeps 100,000 lines under 2 s without zod). A damaged key is treated as absent, never guessed at.
export function isSeriesKey(v: unknown): v is SeriesKey {
  if (!v || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  const strOrNull = (x: unknown): boolean => x === null || typeof x === 'string';
  const strings = (x: unknown): boolean => Array.isArray(x) && x.every((s) => typeof s === 'string');
  return strOrNull(o.gate) && typeof o.command === 'string' && strOrNull(o.recipe) && strOrNull(o.golden)
    && strings(o.arms) && strings(o.modes) && (o.target === undefined || typeof o.target === 'string');
}
