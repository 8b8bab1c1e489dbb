import { ledgerOnSilicon } from '../results/ledger.js';
import { siliconKey } from '../silicon/types.js';
import { measured, withheld } from '../quantity/make.js';
import { ratio } from '../quantity/compare.js';
import type { Quantity } from '../quantity/types.js';
import type { RunResult } from '../results/types.js';

const NAME = 'per output token vs ledger baseline';
const FIGURE = 'leg1.perOutputToken';

// SPEC §7: the baseline comes from the ledger by silicon key — the newest earlier a3 of this recipe on the
// same silicon — and the comparison is this leg's per-token figure over it. No entry → withheld by name.
export function ledgerBaselineRatio(r: Pick<RunResult, 'legs' | 'silicon' | 'recipe' | 'runDir'>, resultsBase: string): Quantity {
  const current = r.legs[0]?.quantities.perOutputToken;
  if (!current || current.status !== 'measured') return withheld(NAME, 'MISSING_TERM', 'this run has no measured per-token figure to compare');
  if (!r.silicon) return withheld(NAME, 'MISSING_TERM', 'the silicon of this run is unknown, so no ledger entry can be matched to it');
  const key = siliconKey(r.silicon);
  const { entries, skipped } = ledgerOnSilicon(resultsBase, key);
  const earlier = entries
    .filter((e) => e.command === 'a3' && e.recipe === r.recipe?.name && e.runDir !== r.runDir && e.figures[FIGURE] !== undefined)
    .sort((a, b) => a.at.localeCompare(b.at));
  const base = earlier[earlier.length - 1];
  if (!base) return withheld(NAME, 'MISSING_TERM', `no earlier a3 of recipe ${r.recipe?.name} on ${key} in the ledger${skipped ? ` (${skipped} unreadable line(s) skipped)` : ''}`);
  const fig = base.figures[FIGURE]!;
  const b = measured(`per output token of ${base.runDir} (${base.at}, from the ledger)`, 'perOutputToken', fig.value, fig.unit, {}, { silicon: r.silicon });
  return { ...ratio(current, b, NAME) };
}
