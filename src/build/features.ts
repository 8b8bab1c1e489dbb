import { createDriverReader } from '../profiles/reader.js';
import type { Profile } from '../profiles/types.js';
import type { FeatureParser } from './cells.js';

// The build's view of CORE's feature-table reader: configure lines → cells, for one engine profile.
export function featureParserFor(profile: Profile): FeatureParser {
  return (lines) => {
    const reader = createDriverReader(profile);
    for (const l of lines) reader.push(l);
    return reader.report().features.cells.map((c) => ({
      name: c.cell,
      enabled: c.state === 'ENABLED',
      detail: c.state === 'ENABLED' ? `ENABLED for [${c.archs.join(', ')}]` : `DISABLED${c.reason ? `: ${c.reason}` : ''}`,
    }));
  };
}
