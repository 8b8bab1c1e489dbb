import { join } from 'node:path';
import { TOOL } from '../version.js';
import { buildVars } from '../build/build.js';
import { expandArgv } from '../build/template.js';
import { monoNs, spanS } from '../exec/clock.js';
import { acquireLock, lockPath } from '../exec/lock.js';
import { onInterrupt } from '../exec/interrupt.js';
import { describeEnd } from '../exec/types.js';
import { whichProgram } from '../exec/which.js';
import { writeAtomic } from '../io/atomic.js';
import { NhGateError } from '../errors.js';
import { createRunDir } from '../results/write.js';
import { appendLedger } from '../results/ledger.js';
import { markDeadRuns, thisHarness } from '../results/deadRuns.js';
import { RESULT_SCHEMA_VERSION, type RunResult } from '../results/types.js';
import { saveRun } from '../report/save.js';
import { checkArch } from '../gates/arch.js';
import { buildStep, prepareStep } from '../gates/buildStep.js';
import type { GateDeps } from '../gates/deps.js';
import type { Inputs } from '../gates/setup.js';
import type { SeriesOutcome } from '../gates/series/types.js';
import { seriesVerdict } from '../gates/series/finish.js';
import { loadAgent } from './client.js';
import { runLoad } from './load.js';
import { freePort, startServer, type RunningServer } from './server.js';
import { assessLoad } from './assess.js';
import { describeShape, servePoint, type ServeRecord } from './record.js';
import { sweepOutcome, sweepPlotPoints } from './sweep.js';
import type { PlotInputs } from '../report/save.js';
import type { LoadShape, LoadStop, Slo, ValidityLimits } from './types.js';

// nh-gate serve: options → silicon/arch → lock → build → prepare → the server started once → each load
// (one, or each rate of a sweep) against it → every response judged → validity → result, ledger. The
// server's load is timed by the readiness probe and lies before every window.

export interface ServeOptions {
  argv: string[];
  inputs: Inputs;
  arch?: string | undefined;
  jobs: number;
  resultsBase: string;
  // One load, or several (a sweep of rates), run in turn against the same server.
  loads: LoadShape[];
  stop: LoadStop;
  limits: ValidityLimits;
  slo: Slo | null;
  requestTimeoutS: number;
  // Parallel slots of the server; absent: a concurrency's C, else the recipe's serve.slots.
  slots?: number | undefined;
}

function slotsFor(o: ServeOptions, recipeSlots: number): number {
  if (o.slots !== undefined) return o.slots;
  const inFlight = o.loads.filter((l) => l.kind === 'concurrency').map((l) => l.inFlight);
  return inFlight.length > 0 ? Math.max(...inFlight) : recipeSlots;
}

export async function runServe(o: ServeOptions, deps: GateDeps): Promise<SeriesOutcome> {
  const serve = o.inputs.recipe.serve;
  if (!serve) throw new NhGateError('BAD_INPUT', `${o.inputs.recipePath}: recipe '${o.inputs.recipe.name}' has no "serve" block: nh-gate does not know how to start its server`, 'add a serve block (docs/serve.md, "the recipe"), or use a recipe that has one (llama-cpp)');
  const interrupt = onInterrupt((sig) => process.stderr.write(`\nnh-gate: ${sig}: stopping the load and the server; what finished is kept\n`));
  const signal = interrupt.signal;
  const { inputs } = o;
  const now = deps.now();
  const silicon = await deps.detectSilicon();
  const arch = checkArch(o.arch, silicon, inputs.recipe);
  if (!arch.ok && arch.usage) throw new NhGateError('USAGE', arch.message, 'pass --arch cpu, 90, 90a, 121a, 110 … (the compute capability of the target GPU)');
  const maxNewTokens = inputs.golden.sampling.maxNewTokens;
  const slots = slotsFor(o, serve.slots);
  const runDir = createRunDir(o.resultsBase, `serve-${inputs.recipe.name}`, now);
  const record: ServeRecord = { stop: o.stop, limits: o.limits, slo: o.slo, requestTimeoutS: o.requestTimeoutS, maxNewTokens, slots, server: { argv: [], loadS: null, logFile: 'server.log', end: null }, points: [] };
  const r: RunResult = {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: TOOL, command: 'serve', argv: o.argv, runDir,
    startedAt: now.toISOString(), finishedAt: null, status: 'running',
    recipe: { name: inputs.recipe.name, path: inputs.recipePath },
    golden: { name: inputs.golden.name, revision: inputs.golden.checkpoint.revision, path: inputs.goldenPath },
    gate: null, arch: arch.arch, silicon, build: null, plan: null, legs: [], quantities: {}, comparison: null,
    verdict: seriesVerdict('NOT_FINISHED', 'not finished'), notes: [], harness: thisHarness(), serve: record,
  };
  r.notes.push(...markDeadRuns(o.resultsBase, runDir));
  const finish = async (status: RunResult['status']): Promise<SeriesOutcome> => {
    r.status = signal.aborted ? 'interrupted' : status;
    r.finishedAt = deps.now().toISOString();
    await saveRun(r, plotsOf(record), deps.live);
    appendLedger(o.resultsBase, r);
    return { result: r, exitClass: r.verdict.exitClass };
  };
  if (!arch.ok) {
    r.verdict = seriesVerdict('NO_SUCH_SILICON', arch.message);
    interrupt.dispose();
    return finish('complete');
  }
  if (arch.note) r.notes.push(arch.note);
  r.plan = { text: `serve: ${o.loads.map(describeShape).join(' → ')}; each load sends at least ${o.stop.minRequests} request(s) over at least ${o.stop.minDurationS} s (at most ${o.stop.maxRequests}); server slots ${slots}`, order: 'sequential', seed: o.loads.find((l) => l.kind === 'rate')?.seed ?? null, legs: o.loads.length };
  const lock = acquireLock(lockPath(), `nh-gate serve (${inputs.recipe.name})`);
  let server: RunningServer | null = null;
  try {
    const built = await buildStep({ inputs, arch: arch.arch, jobs: o.jobs, deps, runDir, signal });
    r.build = built.build;
    if (built.failed) {
      r.verdict = built.failed;
      return await finish('complete');
    }
    const vars = buildVars(inputs.recipe, inputs.root, arch.arch, o.jobs);
    const prepared = await prepareStep(inputs, vars, deps, signal);
    if (prepared) {
      r.verdict = prepared;
      return await finish('complete');
    }
    const port = await freePort();
    const argv = expandArgv(serve.argv, { ...vars, port: String(port), slots: String(slots) }, 'recipe.serve.argv');
    record.server.argv = argv;
    if (whichProgram(argv[0]!, inputs.root) === null) {
      r.verdict = seriesVerdict('MISSING_BINARY', `${argv[0]} does not exist or is not executable (recipe ${inputs.recipePath}: serve.argv[0]) — fix the recipe's path, or check that the build makes it`, 'VOID', 'usage');
      return await finish('complete');
    }
    deps.progress(`[nh-gate] serve: starting ${argv.join(' ')}`);
    const started = await startServer({ exec: deps.exec, argv, env: serve.env, unset: [], cwd: inputs.root, port, readyPath: serve.ready.path, readyTimeoutS: serve.ready.timeoutS, logPath: join(runDir, 'server.log'), signal, onSpawn: (pid) => lock.recordLeg(pid) });
    if (!started.ok) {
      record.server.end = describeEnd(started.run);
      r.verdict = seriesVerdict('SERVER_FAILED', started.why);
      return await finish('complete');
    }
    server = started.server;
    record.server.loadS = server.loadS;
    await saveRun(r, { timelines: [], ab: null }, deps.live);
    await runLoads(o, r, record, server, port, signal, deps);
    return await finish('complete');
  } finally {
    if (server) {
      const ended = await server.stop();
      record.server.end = describeEnd(ended.run);
    }
    interrupt.dispose();
    lock.release();
  }
}

// A sweep's plot (one load has none).
function plotsOf(record: ServeRecord): PlotInputs {
  const sweep = record.points.length > 1 ? { title: 'serve sweep: throughput against TTFT p50 (knee ringed)', latencyLabel: 'TTFT p50', points: sweepPlotPoints(record) } : null;
  return { timelines: [], ab: null, sweep };
}

// Each load in turn against the running server; the result is saved after each, the verdict set at the end.
async function runLoads(o: ServeOptions, r: RunResult, record: ServeRecord, server: RunningServer, port: number, signal: AbortSignal, deps: GateDeps): Promise<void> {
  const serve = o.inputs.recipe.serve!;
  const agent = loadAgent();
  const prompts = o.inputs.golden.prompts.map((p) => ({ id: p.id, promptTokens: p.promptTokens }));
  const raw: string[] = [];
  try {
    for (const [i, shape] of o.loads.entries()) {
      if (signal.aborted) break;
      // Times of a load are seconds from its own origin; the server was ready before it.
      const originNs = monoNs();
      const nowS = (): number => spanS(originNs, monoNs());
      const requests = await runLoad({ shape, stop: o.stop, requestTimeoutS: o.requestTimeoutS, maxNewTokens: o.inputs.golden.sampling.maxNewTokens, prompts: prompts.length }, {
        target: { port, path: serve.request.path }, prompts, bodyTemplate: serve.request.body, agent, nowS, signal,
        onEnd: (q) => deps.progress(`[nh-gate] serve ${describeShape(shape)}: request ${q.index} ${q.end} (${q.ids.length} tokens)`),
      });
      const alive = await server.checkAlive();
      const a = assessLoad({ golden: o.inputs.golden, requests, shape, slo: o.slo, loadS: server.loadS, limits: o.limits, server: alive });
      record.points.push(servePoint(shape, requests, a));
      for (const q of requests) raw.push(JSON.stringify({ point: i, ...q }));
      writeAtomic(join(r.runDir, 'requests.jsonl'), raw.join('\n') + '\n');
      process.stderr.write(`[nh-gate] serve ${describeShape(shape)}: ${requests.length} request(s), tokens ${a.tokens.matched}/${a.tokens.compared} → ${a.verdict.word}\n`);
      const out = sweepOutcome(record);
      r.quantities = out.quantities;
      r.verdict = out.verdict;
      if (out.knee) record.knee = out.knee;
      await saveRun(r, plotsOf(record), deps.live);
    }
  } finally {
    agent.destroy();
  }
  if (signal.aborted) r.verdict = seriesVerdict('PARTIAL', `interrupted after ${record.points.length} of ${o.loads.length} load(s); what finished is kept in ${r.runDir}`);
}
