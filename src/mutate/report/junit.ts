import { escapeXml } from '../../io/xml.js';
import type { MutantResult } from '../types.js';
import { verdictText } from './table.js';

const esc = escapeXml;

// One <testcase> per mutant: a row that kept its promise passes, a survivor or unpromised catch is a
// <failure>, and anything that proved nothing (VOID, TIMEOUT) is an <error>, never a pass.
export function toJunit(rows: MutantResult[], suiteName: string): string {
  const failures = rows.filter((r) => r.exitClass === 'failed').length;
  const errors = rows.filter((r) => r.exitClass === 'void').length;
  const time = rows.reduce((s, r) => s + (r.buildS ?? 0) + (r.suite?.durationS ?? 0), 0);
  const cases = rows.map((r) => {
    const head = `    <testcase classname="${esc(`mutate.${suiteName}`)}" name="${esc(r.id)}" file="${esc(r.mutation.file)}" time="${((r.buildS ?? 0) + (r.suite?.durationS ?? 0)).toFixed(3)}"`;
    const msg = esc(`${verdictText(r)}: ${r.detail}`);
    if (r.exitClass === 'failed') return `${head}>\n      <failure message="${msg}">${esc(r.mutation.why)}</failure>\n    </testcase>`;
    if (r.exitClass === 'void') return `${head}>\n      <error message="${msg}">${esc(r.mutation.why)}</error>\n    </testcase>`;
    return `${head}>\n      <system-out>${msg}</system-out>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="nh-gate mutate" tests="${rows.length}" failures="${failures}" errors="${errors}" time="${time.toFixed(3)}">`,
    `  <testsuite name="${esc(`mutate.${suiteName}`)}" tests="${rows.length}" failures="${failures}" errors="${errors}" time="${time.toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
