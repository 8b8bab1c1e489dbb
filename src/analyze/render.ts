import { witnessedWord } from '../verdict/witness.js';
import type { GarbageLine } from '../config/load.js';
import type { DriverReport, KvFields } from '../profiles/types.js';
import { quantityJson, renderQuantity } from '../quantity/render.js';
import { legLines } from '../report/text.js';
import type { Analysis } from './analyze.js';

export interface AnalyzeContext {
  log: string;
  label: string | null;
  profile: string;
  recipe: string | null;
  arch: string | null;
  timed: boolean;
  bytes: number;
  samplesPath: string | null;
  garbage: GarbageLine[];
  exitCode: number;
}

function fields(f: KvFields): string {
  return Object.entries(f).map(([k, v]) => `${k}=${v}`).join(' ');
}

const MAX_GARBAGE_SHOWN = 10;

// The engine's prompt row as printed: only the fields it printed (an engine judged by ids prints no counts).
function promptRow(p: DriverReport['prompts'][number]): string {
  const f: Array<[string, unknown]> = [['prompt_tokens', p.promptTokens], ['generated', p.generated], ['golden_width', p.goldenWidth], ['compared', p.compared], ['matched', p.matched]];
  const kv = f.filter(([, v]) => v !== null).map(([k, v]) => `${k}=${v}`);
  if (p.wallS !== null) kv.push(`wall=${p.wallS}s`);
  return `  prompt ${p.prompt}${p.block >= 0 ? ` block ${p.block}` : ''}: ${kv.join(' ')}${p.short ? ' SHORT' : ''}`;
}

// The token verdict, said once (analyze.ts tokenVerdict): a leg log's as the live leg printed it, with the
// engine's own lines beside it as its claim; any other log's from the engine's counters.
function tokenSection(a: Analysis, r: DriverReport): string[] {
  const g = a.tokenGate;
  const out: string[] = [];
  const blocks = g.blocks.map((b) => `block ${b.index} mode=${b.mode ?? '(not printed)'}: ${b.matched}/${b.compared} over ${b.prompts} prompt(s)${b.fullRows === null ? ' (rows not printed)' : ` (full rows=${b.fullRows}, short rows=${b.shortRows})`}`);
  if (a.leg) {
    out.push(`token gate: ${witnessedWord(a.tokens.word, a.leg.witness)} — ${a.tokens.why}`);
    out.push(...legLines(a.leg).map((l) => `  ${l}`));
    if (blocks.length || g.engineVerdicts.length) out.push(`  the engine's own lines (its claim): ${[...blocks, ...g.engineVerdicts.map((v) => `said ${v}`)].join('; ')}`);
  } else {
    out.push('token gate');
    if (blocks.length === 0) out.push('  no TOKEN MATCH line');
    for (const b of blocks) out.push(`  ${b}`);
    out.push(`  engine said: ${g.engineVerdicts.length ? g.engineVerdicts.join(' | ') : '(no verdict line)'}`);
    out.push(`  judged: ${a.tokens.word} — ${a.tokens.why}`);
  }
  for (const d of g.disagreements) out.push(`  ! ${d}`);
  if (r.prompts.length > 0) {
    out.push(a.leg ? "the engine's prompt rows (as printed)" : 'prompts');
    for (const p of r.prompts) {
      out.push(promptRow(p));
      if (p.got !== null) out.push(`    got: ${p.got}`);
      if (p.exp !== null) out.push(`    exp: ${p.exp}`);
    }
    if (r.promptsDropped > 0) out.push(`  … ${r.promptsDropped} more row(s) counted, not listed`);
  }
  return out;
}

// The human report: every section says what it saw; every number is a rendered quantity.
export function renderAnalysisText(a: Analysis, r: DriverReport, ctx: AnalyzeContext): string {
  const out: string[] = [];
  out.push(`nh-gate analyze ${ctx.log}${ctx.label ? ` [${ctx.label}]` : ''}: profile ${ctx.profile}${ctx.recipe ? `, recipe ${ctx.recipe}` : ''}, arch ${ctx.arch ?? 'not given'}`);
  out.push(`  ${r.lines} lines, arrival times ${ctx.timed ? 'present' : 'absent'}; ${r.load ? `engine load line ${r.load.line}: ${r.load.loadS} s stated` : 'no engine load line'}`);
  if (r.banner) out.push(`  engine: ${r.banner}`);
  out.push(...tokenSection(a, r));
  out.push(`reference tier: ${r.referenceTier.count} line(s)${r.referenceTier.count > 0 ? ' — the run fell back to a portable path' : ''}`);
  if (r.counters.total > 0) {
    out.push(`counters: ${r.counters.total} line(s), ${r.counters.groups.length} distinct${r.counters.groupsOverflow ? ` (+${r.counters.groupsOverflow} beyond the cap)` : ''}`);
    for (const grp of r.counters.groups.slice(0, 20)) out.push(`  ${grp.count}× ${grp.label} ${fields(grp.fields)}`);
  }
  if (r.features.cells.length > 0 || r.features.targetArchs) {
    out.push(`feature table: target archs ${r.features.targetArchs?.join(', ') ?? '(not printed)'}`);
    for (const c of r.features.cells) out.push(`  ${c.family} ${c.cell}: ${c.state}${c.archs.length ? ` [${c.archs.join(', ')}]` : ''}${c.reason ? ` (${c.reason})` : ''}`);
  }
  r.doctest.forEach((s, i) => {
    const j = a.doctest[i];
    const cases = s.cases ? `${s.cases.total} cases | ${s.cases.passed} passed | ${s.cases.failed} failed | ${s.cases.skipped} skipped` : 'no case line';
    const asserts = s.assertions ? `${s.assertions.total} assertions | ${s.assertions.passed} passed | ${s.assertions.failed} failed` : 'no assertion line';
    out.push(`doctest (line ${s.line}): ${cases}; ${asserts}; threw ${s.threw}; status ${s.status ?? '(none)'} → ${j?.verdict ?? '?'}${j?.reason ? ` (${j.reason})` : ''}: ${j?.message ?? ''}`);
  });
  out.push('quantities');
  out.push(`  decode window: ${a.decode.source}${a.decode.window ? ` ${a.decode.window.startS.toFixed(3)}:${a.decode.window.endS.toFixed(3)} s` : ''} (${a.decode.why})`);
  // A leg log's figures are the leg's own, printed with it above.
  if (!a.leg) out.push(`  ${renderQuantity(a.perOutputToken)}`);
  if (a.engineTimer && !a.leg) out.push(`  ${renderQuantity(a.engineTimer)}`);
  if (a.busy) {
    out.push(`  ${renderQuantity(a.busy.timeWeighted)}`);
    out.push(`  ${renderQuantity(a.busy.nonzeroShare)}`);
  } else out.push('  GPU busy not sampled: no --samples file given');
  for (const b of a.baselines) out.push(`  ${renderQuantity(b)}`);
  if (ctx.garbage.length > 0) {
    out.push(`samples file ${ctx.samplesPath}: ${ctx.garbage.length} garbage line(s) skipped`);
    for (const gl of ctx.garbage.slice(0, MAX_GARBAGE_SHOWN)) out.push(`  line ${gl.lineNo}: ${gl.reason}`);
    if (ctx.garbage.length > MAX_GARBAGE_SHOWN) out.push(`  … ${ctx.garbage.length - MAX_GARBAGE_SHOWN} more`);
  }
  for (const n of a.notes) out.push(`note: ${n}`);
  out.push(`exit ${ctx.exitCode} (${a.exitClass})`);
  return out.join('\n') + '\n';
}

// The --json document: one object on stdout, quantities in the SPEC §3 shape.
export function analysisJson(a: Analysis, r: DriverReport, ctx: AnalyzeContext): Record<string, unknown> {
  return {
    schemaVersion: 1,
    command: 'analyze',
    log: ctx.log,
    label: ctx.label,
    profile: ctx.profile,
    recipe: ctx.recipe,
    arch: ctx.arch,
    bytes: ctx.bytes,
    timed: ctx.timed,
    lines: r.lines,
    banner: r.banner,
    load: r.load,
    // The one token verdict; for a leg log the engine's lines (tokenGate) are its claim, not a second verdict.
    tokens: a.tokens,
    tokenGate: a.leg ? { role: 'engine claim', blocks: a.tokenGate.blocks, engineVerdicts: a.tokenGate.engineVerdicts, disagreements: a.tokenGate.disagreements } : a.tokenGate,
    prompts: r.prompts,
    promptsDropped: r.promptsDropped,
    referenceTier: r.referenceTier,
    counters: { total: r.counters.total, groups: r.counters.groups, groupsOverflow: r.counters.groupsOverflow },
    features: r.features,
    doctest: r.doctest.map((s, i) => ({ ...s, judgement: a.doctest[i] })),
    decodeWindow: a.decode.window ? { ...a.decode.window, source: a.decode.source } : { source: a.decode.source, why: a.decode.why },
    quantities: {
      perOutputToken: quantityJson(a.perOutputToken),
      engineTimer: a.engineTimer ? quantityJson(a.engineTimer) : null,
      busyTimeWeighted: a.busy ? quantityJson(a.busy.timeWeighted) : null,
      busyNonzeroShare: a.busy ? quantityJson(a.busy.nonzeroShare) : null,
      baselines: a.baselines.map(quantityJson),
    },
    samples: ctx.samplesPath ? { path: ctx.samplesPath, garbage: ctx.garbage } : null,
    notes: a.notes,
    exitClass: a.exitClass,
    exitCode: ctx.exitCode,
    leg: a.leg ? { verdict: a.leg.verdict, voidReasons: a.leg.voidReasons, tokens: a.leg.tokens, crossCheck: a.leg.crossCheck } : null,
  };
}
