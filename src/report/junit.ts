import { escapeXml } from '../io/xml.js';
import { formatReason } from '../verdict/reasons.js';
import type { RunResult } from '../results/types.js';
import { legLines } from './text.js';
import { ENGINE_CLAIM, runWitness } from '../verdict/witness.js';

const esc = escapeXml;

const PASS = new Set(['STRICT PASS', 'NEAR-TIE PASS', 'SUPPORTED', 'PASSED', 'MEASURED', 'VALID']);
const FAIL = new Set(['DIVERGENCE', 'REFUTED', 'SHORT', 'FAILED']);

function outcome(word: string, message: string, body: string, witness?: string | null): string {
  // A pass that rests on the engine's counters says so: CI shows a passing case's output.
  if (PASS.has(word)) return witness === 'engine' ? `\n      <system-out>${esc(`${word} (${ENGINE_CLAIM})`)}</system-out>` : '';
  // A void/refused/unresolved result is an error in JUnit terms, never a pass and never a silent skip.
  const tag = FAIL.has(word) ? 'failure' : 'error';
  return `\n      <${tag} type="${esc(word)}" message="${esc(message)}">${esc(body)}</${tag}>`;
}

// junit.xml for CI: one testcase per leg plus one for the run's verdict.
export function renderJunit(r: RunResult): string {
  const cases: string[] = [];
  for (const l of r.legs) {
    const dur = Math.max(0, l.process.endS - l.process.startS);
    cases.push(`    <testcase classname="nh-gate.${r.command}" name="${esc(`leg ${l.index + 1} ${l.label}`)}" time="${dur.toFixed(3)}">${outcome(l.verdict, `${l.verdict}: ${l.voidReasons.map(formatReason).join('; ') || l.process.end}`, legLines(l).join('\n'), l.witness)}
    </testcase>`);
  }
  cases.push(`    <testcase classname="nh-gate.${r.command}" name="${esc(`verdict ${r.gate?.name ?? r.command}`)}" time="0">${outcome(r.verdict.word, `${r.verdict.word}: ${r.verdict.reasons.join('; ')}`, r.verdict.reasons.join('\n'), runWitness(r.legs))}
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
