#!/usr/bin/env node
// nh-gate's driver for llama.cpp's llama-server (docs/engines.md, "the driver contract").
// It starts llama-server on a free loopback port, waits for /health, prints the load-complete line, then for
// each prompt POSTs /completion with the prompt's token ids (greedy: temperature 0, top_k 1, n_probs 2,
// stream true) and stamps every token as its event arrives. It judges nothing: it prints each prompt's ids,
// a row, llama.cpp's own timer, and writes the events JSONL; the harness compares with the golden.
// With --oracle it speaks the oracle protocol instead (request on stdin, answer on stdout). With --tokenize FILE
// it turns text prompts (one a line) into the prompt-ids file a golden capture takes, with the model's own
// tokenizer (docs/own-model.md).
// No dependencies beyond Node >= 20 (fetch, streams), so it runs where only node and the binary are.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync, writeFileSync, appendFileSync, createWriteStream } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename } from 'node:path';

const PREFIX = '[llama-server]';
const USAGE = 'usage: llama-server.mjs --server BIN --model FILE.gguf (--golden FILE | --request FILE | --oracle | --tokenize PROMPTS.txt [--out IDS.json]) [--events FILE] [--mode decode] [--ctx N] [--server-log FILE] [--timeout-s S]';

function parseArgs(argv) {
  const o = { server: null, model: null, golden: null, request: null, oracle: false, tokenize: null, out: null, events: null, mode: 'decode', ctx: 4096, serverLog: null, timeoutS: 300 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i], next = () => { const v = argv[++i]; if (v === undefined) fail(2, `${a} needs a value; ${USAGE}`); return v; };
    if (a === '--server') o.server = next();
    else if (a === '--model') o.model = next();
    else if (a === '--golden') o.golden = next();
    else if (a === '--request') o.request = next();
    else if (a === '--oracle') o.oracle = true;
    else if (a === '--tokenize') o.tokenize = next();
    else if (a === '--out') o.out = next();
    else if (a === '--events') o.events = next();
    else if (a === '--mode') o.mode = next();
    else if (a === '--ctx') o.ctx = Number(next());
    else if (a === '--server-log') o.serverLog = next();
    else if (a === '--timeout-s') o.timeoutS = Number(next());
    else fail(2, `unknown argument ${a}; ${USAGE}`);
  }
  if (!o.server || !o.model) fail(2, `--server and --model are required; ${USAGE}`);
  if (!o.oracle && !o.golden && !o.request && !o.tokenize) fail(2, `pass --golden, --request, --oracle or --tokenize; ${USAGE}`);
  return o;
}

// A driver failure is not a verdict: exit 2 for usage, 70 for the engine breaking (the harness voids the leg).
function fail(code, msg) {
  process.stderr.write(`${PREFIX} error: ${msg}\n`);
  process.exit(code);
}

// Prompts as token ids and the number of tokens to generate, from a golden or an oracle-protocol request.
function loadRequest(o) {
  const text = o.oracle ? readFileSync(0, 'utf8') : readFileSync(o.golden ?? o.request, 'utf8');
  const j = JSON.parse(text);
  const maxNew = j.sampling?.maxNewTokens;
  if (!Number.isInteger(maxNew) || maxNew < 1) fail(2, 'sampling.maxNewTokens must be a positive integer');
  if (!Array.isArray(j.prompts) || j.prompts.length === 0) fail(2, 'prompts must be a non-empty array');
  return { maxNew, prompts: j.prompts.map((p) => ({ id: p.id, promptTokens: p.promptTokens })) };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const nowNs = () => process.hrtime.bigint(); // CLOCK_MONOTONIC on Linux: the harness's clock

async function startServer(o, port) {
  const args = ['--model', o.model, '--host', '127.0.0.1', '--port', String(port), '--ctx-size', String(o.ctx), '--parallel', '1', '--no-webui'];
  const child = spawn(o.server, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = [];
  const log = o.serverLog ? createWriteStream(o.serverLog) : null;
  const keep = (chunk) => {
    log?.write(chunk);
    for (const l of chunk.toString('utf8').split('\n')) if (l.trim()) { tail.push(l); if (tail.length > 30) tail.shift(); }
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = null;
  child.once('exit', (code, signal) => { exited = { code, signal }; });
  child.once('error', (err) => { exited = { code: null, signal: null, error: err.message }; });
  const stop = () => { if (!exited) child.kill('SIGTERM'); };
  process.once('exit', stop);
  for (const sig of ['SIGTERM', 'SIGINT']) process.once(sig, () => { stop(); process.exit(130); });
  const deadline = Date.now() + o.timeoutS * 1000;
  while (Date.now() < deadline) {
    if (exited) fail(70, `llama-server exited during load (${exited.error ?? `code ${exited.code} signal ${exited.signal}`}); last lines:\n${tail.join('\n')}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      if (r.status === 200) {
        const props = await fetch(`http://127.0.0.1:${port}/props`).then((x) => x.json()).catch(() => ({}));
        return { child, stop, tail, buildInfo: typeof props.build_info === 'string' ? props.build_info : null };
      }
    } catch { /* not listening yet */ }
    await sleep(20);
  }
  stop();
  fail(70, `llama-server was not healthy within ${o.timeoutS} s; last lines:\n${tail.join('\n')}`);
}

// The margin between the chosen token and the best other one, in nats, from the pre-sampling log-probs.
// Entries ranked above the chosen token were masked by the sampler (ignore_eos masks end-of-generation).
function margin(prob, chosen) {
  const tops = prob?.top_logprobs;
  if (!Array.isArray(tops)) return null;
  const mine = tops.find((t) => t.id === chosen);
  const others = tops.filter((t) => t.id !== chosen && (mine === undefined || t.logprob <= mine.logprob));
  if (!mine || others.length === 0) return null;
  return { nats: Math.max(0, mine.logprob - others[0].logprob), runnerUp: others[0].id };
}

// One prompt through /completion with streaming: every SSE event stamped when it is parsed.
async function complete(port, prompt, maxNew, onToken) {
  const body = { prompt: prompt.promptTokens, n_predict: maxNew, temperature: 0, top_k: 1, n_probs: 2, stream: true, return_tokens: true, ignore_eos: true, cache_prompt: false };
  const r = await fetch(`http://127.0.0.1:${port}/completion`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!r.ok || !r.body) throw new Error(`/completion answered HTTP ${r.status}: ${await r.text()}`);
  const decoder = new TextDecoder();
  let buf = '', timings = null, index = 0;
  for await (const chunk of r.body) {
    const tNs = nowNs();
    buf += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line.startsWith('data: ')) continue;
      const ev = JSON.parse(line.slice(6));
      const probs = Array.isArray(ev.completion_probabilities) ? ev.completion_probabilities : [];
      const ids = Array.isArray(ev.tokens) && ev.tokens.length ? ev.tokens : probs.map((p) => p.id);
      ids.forEach((id, k) => onToken({ index: index++, id, tNs, margin: margin(probs[k], id) }));
      if (ev.stop) timings = ev.timings ?? null;
    }
  }
  return timings;
}

// Text prompts (one a line, blank lines skipped) → prompt ids with the model's tokenizer, BOS where the model
// adds one: [{ id, text, promptTokens }] to --out (else stdout), the file `golden capture --prompt-ids` reads.
async function tokenize(o) {
  let text;
  try {
    text = readFileSync(o.tokenize, 'utf8');
  } catch (err) {
    fail(2, `--tokenize ${o.tokenize}: ${err.code ?? err.message}`);
  }
  const prompts = text.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  if (prompts.length === 0) fail(2, `--tokenize ${o.tokenize}: no prompt in it (one prompt a line)`);
  const port = await freePort();
  const srv = await startServer(o, port);
  const out = [];
  for (const [id, content] of prompts.entries()) {
    const r = await fetch(`http://127.0.0.1:${port}/tokenize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content, add_special: true }) });
    const j = r.ok ? await r.json() : null;
    if (!Array.isArray(j?.tokens) || j.tokens.length === 0) { srv.stop(); fail(70, `/tokenize answered HTTP ${r.status} for prompt ${id} with no tokens`); }
    out.push({ id, text: content, promptTokens: j.tokens });
  }
  srv.stop();
  const ids = '[\n' + out.map((p) => '  ' + JSON.stringify(p)).join(',\n') + '\n]\n';
  if (o.out) {
    writeFileSync(o.out, ids);
    process.stderr.write(`${PREFIX} ${out.length} prompt(s) tokenized -> ${o.out}\n`);
  } else process.stdout.write(ids);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.tokenize) return tokenize(o);
  const req = loadRequest(o);
  const emit = o.events ? (e) => appendFileSync(o.events, JSON.stringify(e) + '\n') : () => {};
  if (o.events) writeFileSync(o.events, '');
  const out = o.oracle ? (s) => process.stderr.write(s + '\n') : (s) => process.stdout.write(s + '\n');
  const t0 = nowNs();
  emit({ event: 'load_start', tNs: String(t0) });
  const port = await freePort();
  const srv = await startServer(o, port);
  const tLoad = nowNs();
  const loadS = Number(tLoad - t0) / 1e9;
  emit({ event: 'load_end', tNs: String(tLoad), loadS });
  out(`${PREFIX} engine loaded in ${loadS.toFixed(3)}s (${o.model}, port ${port})`);
  const answers = [];
  for (const p of req.prompts) {
    const tStart = nowNs();
    emit({ event: 'prompt_start', tNs: String(tStart), prompt: p.id, promptTokens: p.promptTokens.length, mode: o.mode });
    const ids = [], margins = [], runnerUp = [];
    let timings;
    try {
      timings = await complete(port, p, req.maxNew, (t) => {
        ids.push(t.id);
        margins.push(t.margin?.nats ?? null);
        runnerUp.push(t.margin?.runnerUp ?? null);
        emit({ event: 'token', tNs: String(t.tNs), prompt: p.id, index: t.index, token: t.id, mode: o.mode });
      });
    } catch (err) {
      srv.stop();
      fail(70, `prompt ${p.id}: ${err.message}; server's last lines:\n${srv.tail.join('\n')}`);
    }
    const tDone = nowNs();
    emit({ event: 'prompt_done', tNs: String(tDone), prompt: p.id, generated: ids.length, mode: o.mode });
    out(`${PREFIX} prompt ${p.id} ids: ${ids.join(' ')}`);
    if (timings) out(`${PREFIX} prompt ${p.id}: eval time = ${Number(timings.predicted_ms).toFixed(3)} ms / ${timings.predicted_n} tokens (llama.cpp timer)`);
    out(`${PREFIX} prompt ${p.id}: prompt_tokens=${p.promptTokens.length} generated=${ids.length} wall=${(Number(tDone - tStart) / 1e9).toFixed(6)}s`);
    const full = margins.every((m) => m !== null);
    answers.push({ id: p.id, tokens: ids, top2MarginNats: full ? margins : null, ...(full ? { runnerUp } : {}) });
  }
  srv.stop();
  emit({ event: 'done', tNs: String(nowNs()), exitCode: 0 });
  if (o.oracle) {
    const props = { server: o.server, model: o.model, buildInfo: srv.buildInfo };
    process.stdout.write(JSON.stringify({
      schemaVersion: 1,
      oracle: { name: 'llama.cpp llama-server (engine under test as its own oracle)', version: srv.buildInfo ?? 'unknown' },
      checkpoint: { name: basename(o.model), revision: createHash('sha256').update(readFileSync(o.model)).digest('hex') },
      engineConfigRecorded: 'no',
      engineConfig: { ...props, sampling: 'greedy: temperature 0, top_k 1, ignore_eos', margins: 'n_probs 2, pre-sampling log-probs (float32)' },
      prompts: answers,
    }) + '\n');
  }
}

main().catch((err) => fail(70, err?.stack ?? String(err)));
