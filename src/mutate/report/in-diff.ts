import { MAX_CONTEXT_LINES, type GenerationSummary } from '../generate/generate.js';
import type { MutantResult } from '../types.js';

// Each surviving generated row as file:line plus its one-line diff: where a line can change unnoticed.
export function survivors(rows: MutantResult[]): { id: string; file: string; line: number; operator: string; what: string; before: string; after: string; suite: string }[] {
  return rows.filter((r) => r.origin && r.verdict === 'SURVIVED').map((r) => ({
    id: r.id, file: r.mutation.file, line: r.origin!.line, operator: r.origin!.operator, what: r.origin!.what,
    before: r.origin!.before, after: r.origin!.after, suite: r.origin!.judgedBy ?? (r.mutation.filter ? `${r.mutation.suite} --test-case=${r.mutation.filter}` : r.mutation.suite),
  }));
}

// The lines only a sanitizer protects: generated rows the suites let through and their sanitizer build
// caught, each with the sanitizer's report.
export function sanitizerOnly(rows: MutantResult[]): { id: string; file: string; line: number; operator: string; what: string; finding: string }[] {
  return rows.filter((r) => r.origin && r.verdict === 'CAUGHT BY SANITIZER').map((r) => ({
    id: r.id, file: r.mutation.file, line: r.origin!.line, operator: r.origin!.operator, what: r.origin!.what, finding: r.sanitizer?.finding ?? '',
  }));
}

// The generation facts in one paragraph: how many, from what, the caps, and every skip by reason.
export function renderGeneration(g: GenerationSummary & { rev: string }, sourceDir: string): string {
  const nz = (rec: Record<string, number>): string => Object.entries(rec).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  const lines = [
    `generated ${g.generated} mutant(s) from ${g.changedLines} changed line(s) in ${g.files.length} source file(s) of ${sourceDir} since ${g.rev} (caps: ${g.caps.perLine} per changed line, ${g.caps.perChange} per change; ${g.candidates} candidates)`,
    `  lines skipped: ${nz(g.skippedLines)}; mutants skipped: ${nz(g.skippedMutants)}`,
  ];
  for (const f of g.files) lines.push(`  ${f.file}: ${f.changedLines} changed line(s), ${f.mutatedLines} mutated, judged by ${f.suites.join(' | ')}`);
  if (g.notUnique.length) lines.push(`  anchor not unique even with ${MAX_CONTEXT_LINES} lines of context on each side (skipped): ${g.notUnique.join(', ')}`);
  if (g.ignoredFiles.length) lines.push(`  not a C/C++/CUDA source of the recipe (ignored): ${g.ignoredFiles.join(', ')}`);
  return lines.join('\n');
}

// The generated rows' outcome by class, the words a reviewer reads first.
export function renderGeneratedCounts(rows: MutantResult[]): string {
  const gen = rows.filter((r) => r.origin);
  const n = (f: (r: MutantResult) => boolean): number => gen.filter(f).length;
  const bySanitizer = n((r) => r.verdict === 'CAUGHT BY SANITIZER');
  return `generated rows: ${gen.length}: ${n((r) => r.verdict === 'CAUGHT')} caught, ${bySanitizer ? `${bySanitizer} caught only by the sanitizer build, ` : ''}${n((r) => r.verdict === 'SURVIVED')} survived, ${n((r) => r.verdict === 'TIMEOUT')} timed out, ` +
    `${n((r) => r.reason === 'UNVIABLE')} unviable, ${n((r) => r.reason === 'NOT_REBUILT')} equivalent-by-binary (NOT_REBUILT), ${n((r) => r.verdict === 'VOID' && !r.excluded)} other VOID; ${n((r) => r.cached === true)} from the cache`;
}

// Each survivor as `file:line` and a two-line diff: this line can change and no test notices; then the
// lines only the sanitizer build protects, and what each survivor's sanitizer re-judge said.
export function renderSurvivors(rows: MutantResult[]): string {
  const s = survivors(rows);
  const out = s.length === 0 ? ['survivors: none'] : [`survivors (${s.length}): these lines can change and no test notices`, ...s.flatMap((x) => {
    const san = rows.find((r) => r.id === x.id)?.sanitizer;
    return [
      `  ${x.file}:${x.line}: ${x.operator}: ${x.what} — ${x.suite} stayed GREEN (${x.id})`,
      `    - ${x.before.trim()}`,
      `    + ${x.after.trim()}`,
      ...(san ? [`    sanitizer: ${san.detail}`] : []),
    ];
  })];
  const only = sanitizerOnly(rows);
  if (only.length) {
    out.push(`lines only a sanitizer protects (${only.length}): the suites stay GREEN, their sanitizer build goes RED`);
    for (const x of only) out.push(`  ${x.file}:${x.line}: ${x.operator}: ${x.what} — ${x.finding} (${x.id})`);
  }
  return out.join('\n');
}

// GitHub workflow-command escaping: data escapes %, CR, LF; properties also ':' and ','.
const escData = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escProp = (s: string): string => escData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

// --format github: one ::warning per survivor at its file and line, and a ::notice with the counts, so
// the pull request shows "this line can change and no test notices" where the line is.
export function toGithubAnnotations(rows: MutantResult[]): string {
  const out = survivors(rows).map((x) => {
    const r = rows.find((y) => y.id === x.id)!;
    const col = r.origin!.span.start.column;
    return `::warning file=${escProp(x.file)},line=${x.line},col=${col},title=${escProp(`SURVIVED mutant (${x.operator})`)}::${escData(`${x.what}: ${x.suite} stayed GREEN.\n- ${x.before.trim()}\n+ ${x.after.trim()}`)}`;
  });
  for (const r of rows) {
    if (r.origin && r.verdict === 'TIMEOUT') out.push(`::notice file=${escProp(r.mutation.file)},line=${r.origin.line},title=${escProp('TIMEOUT mutant')}::${escData(`${r.origin.what}: ${r.detail}`)}`);
    else if (!r.origin && r.exitClass === 'failed') out.push(`::error file=${escProp(r.mutation.file)}${r.span ? `,line=${r.span.start.line}` : ''},title=${escProp(`mutant ${r.id}`)}::${escData(`${r.verdict}: ${r.detail}`)}`);
  }
  out.push(`::notice title=nh-gate mutate::${escData(renderGeneratedCounts(rows))}`);
  return out.join('\n') + '\n';
}
