import { escapeXml } from '../io/xml.js';
import { formatReason } from '../verdict/reasons.js';
import { JUNIT_OUTCOME, legClass, verdictLine } from '../verdict/record.js';
import type { ExitClass } from '../verdict/words.js';
import type { RunResult } from '../results/types.js';
import { legLines } from './text.js';
import { ENGINE_CLAIM, runWitness } from '../verdict/witness.js';

const esc = escapeXml;

// A testcase's outcome element from its exit class (src/verdict/record.ts decides which class is what):
// nothing for a pass, <failure> for a failed gate, <error> for anything with nothing valid to judge.
function outcome(cls: ExitClass, type: string, message: string, body: string, witness?: string | null): string {
  const o = JUNIT_OUTCOME[cls];
  // A pass that rests on the engine's counters says so: CI shows a passing case's output.
  if (o === 'pass') return witness === 'engine' ? `\n      <system-out>${esc(`${type} (${ENGINE_CLAIM})`)}</system-out>` : '';
  const tag = o === 'failure' ? 'failure' : 'error';
  return `\n      <${tag} type="${esc(type)}" message="${esc(message)}">${esc(body)}</${tag}>`;
}

// junit.xml for CI: one testcase per leg plus one for the run's verdict, each by its exit class.
export function renderJunit(r: RunResult): string {
  const cases: string[] = [];
  for (const l of r.legs) {
    const dur = Math.max(0, l.process.endS - l.process.startS);
    cases.push(`    <testcase classname="nh-gate.${r.command}" name="${esc(`leg ${l.index + 1} ${l.label}`)}" time="${dur.toFixed(3)}">${outcome(legClass(l), l.verdict, `${l.verdict}: ${l.voidReasons.map(formatReason).join('; ') || l.process.end}`, legLines(l).join('\n'), l.witness)}
    </testcase>`);
  }
  const v = { ...r.verdict, witness: r.verdict.witness ?? runWitness(r.legs) };
  cases.push(`    <testcase classname="nh-gate.${r.command}" name="${esc(`verdict ${r.gate?.name ?? r.command}`)}" time="0">${outcome(v.exitClass, v.word, verdictLine(v), v.reasons.map(formatReason).join('\n'), v.witness)}
    </testcase>`);
  const failures = cases.filter((c) => c.includes('<failure')).length;
  const errors = cases.filter((c) => c.includes('<error')).length;
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nh-gate" tests="${cases.length}" failures="${failures}" errors="${errors}">
  <testsuite name="${esc(`nh-gate ${r.command}${r.gate ? ' ' + r.gate.name : ''}`)}" tests="${cases.length}" failures="${failures}" errors="${errors}" timestamp="${esc(r.startedAt)}">
${cases.join('\n')}
  </testsuite>
</testsuites>
`;
}
