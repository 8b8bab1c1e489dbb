#!/usr/bin/env node
// A hostile engine for the witness, clock and containment cases (test/hostile/): driven through a recipe
// exactly as a user's engine is (driver argv + --golden + --events), one behaviour per HOSTILE_CASE. It reads
// the golden's tokens and prints them back, right or wrong as the case says; it judges nothing itself except
// where a case is about the engine's own counters.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : null;
};
const golden = JSON.parse(readFileSync(opt('--golden'), 'utf8'));
const eventsPath = opt('--events');
const CASE = process.env.HOSTILE_CASE ?? 'pass';
const P = '[nh-ref]';
const out = [];
const say = (l) => out.push(l);
// Everything printed so far in one write: the harness reads it in one chunk (the batched-read case).
const flush = () => {
  if (out.length) process.stdout.write(out.splice(0).join('\n') + '\n');
};
const now = () => process.hrtime.bigint();
const events = [];
const ev = (e) => events.push(JSON.stringify(e));
const writeEvents = (text) => eventsPath && writeFileSync(eventsPath, text);

// Stamps that are the engine's own: the clock the harness uses, spaced 1 ms per token.
let t = now() + 10_000_000_000n; // ahead of any read: the harness always saw the load line before these stamps
const tick = (ms = 1) => (t += BigInt(Math.round(ms * 1e6)), String(t));

say(`${P} engine loaded in 0.01 s`);
ev({ event: 'load_end', tNs: tick(0), loadS: 0.01 });
// The decode takes a while on the harness's clock too (its stamps above are the engine's own): the load line and
// the rows arrive in separate reads, except in the batched-read case, which writes everything at once.
if (CASE !== 'batched-read') {
  flush();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
}
let compared = 0, matched = 0;
for (const p of golden.prompts) {
  ev({ event: 'prompt_start', tNs: tick(), prompt: p.id, promptTokens: p.promptTokens.length, mode: 'decode' });
  // counters-lie and HOSTILE_WRONG=1: prompt 0's third token is wrong (the first lies about it in its counters).
  const wrong = CASE === 'counters-lie' || process.env.HOSTILE_WRONG === '1';
  const got = p.tokens.map((tok, i) => (wrong && p.id === 0 && i === 2 ? tok + 1 : tok));
  got.forEach((tok, i) => {
    // backwards: the second prompt's tokens run back in time; collapsed: tokens arrive two to a chunk.
    const stamp = CASE === 'backwards' && p.id === 1 ? String(t - BigInt(i * 3_000_000)) : CASE.startsWith('collapsed') && i % 2 === 1 ? String(t) : tick();
    ev({ event: 'token', tNs: stamp, prompt: p.id, index: i, token: tok, mode: 'decode' });
  });
  ev({ event: 'prompt_done', tNs: tick(), prompt: p.id, generated: got.length, mode: 'decode' });
  const m = got.filter((x, i) => x === p.tokens[i]).length;
  compared += got.length;
  matched += m;
  const row = `${P} prompt ${p.id}: prompt_tokens=${p.promptTokens.length} generated=${got.length} golden_width=${p.tokens.length} compared=${got.length} matched=${CASE === 'counters-lie' ? got.length : m} wall=0.01s`;
  const ids = [`${P} prompt ${p.id} got: ${got.join(',')}`, `${P} prompt ${p.id} exp: ${p.tokens.join(',')}`];
  if (CASE === 'got-before-row' && m < got.length) ids.forEach(say);
  say(row);
  if (CASE === 'got-after-row' && m < got.length) ids.forEach(say);
  if (CASE === 'collapsed' || CASE === 'collapsed-no-timer') {
    say(`${P} prompt ${p.id} ids: ${got.join(' ')}`);
    if (CASE === 'collapsed') say(`${P} prompt ${p.id}: eval time = ${(got.length - 1) * 1.5} ms / ${got.length} tokens`);
  }
}
ev({ event: 'done', tNs: tick(), exitCode: 0 });
const claimMatched = CASE === 'counters-lie' ? compared : matched;
say(`${P} TOKEN MATCH: ${claimMatched}/${compared} over ${golden.prompts.length} prompt(s) (full rows=${golden.prompts.length}, short rows=0, mode=decode)`);
const verdict = claimMatched === compared ? 'STRICT PASS' : 'DIVERGENCE';
say(`${P} ${verdict}`);

// What the events file holds, by case.
const all = events.join('\n') + '\n';
if (CASE === 'events-absent') { /* declared, never written */ }
else if (CASE === 'events-empty') writeEvents('');
else if (CASE === 'events-garbage') writeEvents('token 10\ntoken 11\n{not json}\n');
else if (CASE === 'events-truncated') writeEvents(all.slice(0, Math.floor(all.length * 0.6)));
else if (eventsPath) writeEvents(all);

// Containment: a grandchild in a session of its own that keeps stdout open, or one with no pipes at all.
if (CASE === 'setsid-holds-stdout' || CASE === 'setsid-holds-stdout-hang' || CASE === 'detached') {
  const detached = CASE === 'detached';
  const gc = spawn('sleep', [process.env.HOSTILE_WORKER_S ?? '300'], { detached: true, stdio: detached ? 'ignore' : ['ignore', 'inherit', 'inherit'] });
  say(`${P} worker ${gc.pid}`);
  if (process.env.HOSTILE_PIDFILE) appendFileSync(process.env.HOSTILE_PIDFILE, `${gc.pid}\n`);
  gc.unref();
}
flush();
if (CASE === 'setsid-holds-stdout-hang') setInterval(() => {}, 1000);
else process.exitCode = verdict === 'STRICT PASS' ? 0 : 1;
