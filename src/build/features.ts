import { createDriverReader } from '../profiles/reader.js';
import type { FeatureTable, Profile } from '../profiles/types.js';
import type { CellState } from './types.js';

// The feature-table reader as the build sees it: configure lines → the profile's feature table.
export type FeatureParser = (lines: readonly string[]) => FeatureTable;

// One engine profile's feature-table reader, for the build.
export function featureParserFor(profile: Profile): FeatureParser {
  return (lines) => {
    const reader = createDriverReader(profile);
    for (const l of lines) reader.push(l);
    return reader.report().features;
  };
}

// The table's cells as a build record shows them ("ENABLED for [90]", "DISABLED: NH_REF_CUDA=OFF").
export function cellStates(table: FeatureTable): CellState[] {
  return table.cells.map((c) => ({
    name: c.cell,
    enabled: c.state === 'ENABLED',
    detail: c.state === 'ENABLED' ? `ENABLED for [${c.archs.join(', ')}]` : `DISABLED${c.reason ? `: ${c.reason}` : ''}`,
  }));
}
