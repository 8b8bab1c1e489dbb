import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeAtomic } from '../files.js';
import type { MutateReport } from '../run.js';
import type { MutantResult } from '../types.js';
import { toHtml } from './html.js';
import { toJunit } from './junit.js';
import { toStrykerReport } from './stryker.js';
import { renderGeneration, sanitizerOnly, survivors } from './in-diff.js';

// The report files of one run, by name.
export const REPORT_FILES = { result: 'result.json', stryker: 'mutation-report.json', html: 'mutation-report.html', junit: 'junit.xml' } as const;

// nh-gate's own result document (what --json prints): the run's facts plus every row.
export function resultDoc(rep: MutateReport, exitCode: number, outDir: string): object {
  return {
    schemaVersion: 1, kind: 'mutate', recipe: rep.recipe, sourceDir: rep.sourceDir, jobs: rep.jobs, rebuild: rep.rebuild,
    exitClass: rep.exitClass, exitCode, interrupted: rep.interrupted, wallS: rep.wallS, baselineFailure: rep.baselineFailure,
    userTree: rep.userTree, recovery: rep.recovery,
    wholeBuild: rep.wholeBuild, generation: rep.generation, shard: rep.shard, cacheHits: rep.cacheHits, survivors: survivors(rep.rows), sanitizerOnly: sanitizerOnly(rep.rows),
    baselines: rep.baselines, reportDir: outDir, rows: rep.rows,
  };
}

// Writes every report file atomically; called after each row (partial) and at the end.
export function writeReports(outDir: string, root: string, rows: MutantResult[], rep: MutateReport | null, exitCode: number | null): void {
  const read = (f: string): string | null => {
    try { return readFileSync(resolve(root, f), 'utf8'); } catch { return null; }
  };
  writeAtomic(join(outDir, REPORT_FILES.stryker), JSON.stringify(toStrykerReport(rows, read), null, 2) + '\n');
  writeAtomic(join(outDir, REPORT_FILES.junit), toJunit(rows, rep?.recipe ?? 'partial'));
  const facts = rep
    ? [`recipe ${rep.recipe}, ${rep.jobs} tree(s), ${rep.rebuild} rebuilds, ${rep.wallS.toFixed(1)} s`, `user tree ${rep.sourceDir}: sha256 ${rep.userTree.before} before, ${rep.userTree.after} after (${rep.userTree.unchanged ? 'unchanged' : 'CHANGED'})`, `exit class ${rep.exitClass}${rep.interrupted ? ' (interrupted)' : ''}`]
    : ['partial: the run is still going (or was killed); finished rows only'];
  if (rep?.generation) facts.push(...renderGeneration(rep.generation, rep.sourceDir).split('\n').map((l) => l.trim()));
  writeAtomic(join(outDir, REPORT_FILES.html), toHtml(rows, `nh-gate mutate${rep ? ` — ${rep.recipe}` : ''}`, facts));
  writeAtomic(join(outDir, REPORT_FILES.result), JSON.stringify(rep ? resultDoc(rep, exitCode ?? -1, outDir) : { schemaVersion: 1, kind: 'mutate', partial: true, rows }, null, 2) + '\n');
}
