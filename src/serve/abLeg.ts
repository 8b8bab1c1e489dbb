import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expandArgv } from '../build/template.js';
import { monoNs, spanS } from '../exec/clock.js';
import { describeEnd, lastLines, type ProcessRun } from '../exec/types.js';
import { sha256File } from '../io/hash.js';
import { writeAtomic } from '../io/atomic.js';
import type { ServeLoad } from '../config/serveLoad.js';
import type { PlannedLeg } from '../plan/plan.js';
import { legFileBase } from '../results/legLog.js';
import type { ProcessSummary } from '../results/types.js';
import type { LegContext, LegOutcome } from '../gates/leg/leg.js';
import { assessLoad } from './assess.js';
import { loadAgent } from './client.js';
import { runLoad } from './load.js';
import { describeShape, servePoint } from './record.js';
import { freePort, startServer } from './server.js';
import { serveLegRecord, type ServeLegInput } from './abLegRecord.js';

// One leg of a serve A/B (the series' leg seam, src/gates/series/types.ts): the recipe's server started with
// this arm's environment (a flag is the server process's environment, so the server restarts per leg), ready,
// one load against it, every response judged against the golden, the server stopped. The server's log and the
// load's requests go beside the other legs' files; the leg comes back as data, never a throw for a bad server.

export type LegRun = (ctx: LegContext, planned: PlannedLeg) => Promise<LegOutcome>;

// The process summary of the server, on the series' clock.
// The server is always stopped by the harness: `interrupted` is Ctrl-C's, not the stop's.
function processOf(run: ProcessRun, originNs: bigint, signal: AbortSignal): ProcessSummary {
  const rel = (ns: bigint): number => spanS(originNs, ns);
  return {
    argv: run.argv, exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut, interrupted: signal.aborted, spawnError: run.spawnError,
    end: describeEnd(run), startS: rel(run.startNs), endS: rel(run.endNs), lastLines: lastLines(run), ...(run.contained ? { contained: run.contained } : {}),
  };
}

export function serveLegRunner(load: ServeLoad): LegRun {
  return async (ctx, planned) => {
    const serve = ctx.recipe.serve!;
    const name = legFileBase(planned);
    mkdirSync(join(ctx.runDir, 'legs'), { recursive: true });
    const logFile = join('legs', `${name}.server.log`);
    const port = await freePort();
    const argv = expandArgv(serve.argv, { ...ctx.vars, port: String(port), slots: String(load.slots) }, 'recipe.serve.argv');
    const flagEnv = Object.fromEntries(Object.values(ctx.recipe.flags).filter((f) => f.env in planned.env || planned.unset?.includes(f.env)).map((f) => [f.env, planned.env[f.env] ?? '<unset>']));
    const base = { planned, flagEnv, binarySha256: await sha256File(ctx.binaryPath), logFile, silicon: ctx.silicon };
    ctx.deps.progress(`[nh-gate] leg ${planned.index + 1} (${planned.label}): starting ${argv.join(' ')}`);
    const started = await startServer({
      exec: ctx.deps.exec, argv, env: { ...serve.env, ...planned.env }, unset: planned.unset ?? [], cwd: ctx.vars.root ?? '.', port,
      readyPath: serve.ready.path, readyTimeoutS: serve.ready.timeoutS, logPath: join(ctx.runDir, logFile), signal: ctx.signal, ...(ctx.onSpawn ? { onSpawn: ctx.onSpawn } : {}),
    });
    if (!started.ok) return { ...serveLegRecord({ ...base, process: processOf(started.run, ctx.originNs, ctx.signal), point: null, tokens: null, verdict: null, loadS: null, why: started.why }), timeline: null, log: started.log };
    const server = started.server;
    const agent = loadAgent();
    const prompts = ctx.golden.prompts.map((p) => ({ id: p.id, promptTokens: p.promptTokens }));
    let assessed: Pick<ServeLegInput, 'point' | 'tokens' | 'verdict'> = { point: null, tokens: null, verdict: null };
    let ended: Awaited<ReturnType<typeof server.stop>>;
    try {
      const originNs = monoNs();
      const requests = await runLoad({ shape: load.shape, stop: load.stop, requestTimeoutS: load.requestTimeoutS, maxNewTokens: ctx.golden.sampling.maxNewTokens, prompts: prompts.length }, {
        target: { port, path: serve.request.path }, prompts, bodyTemplate: serve.request.body, agent, nowS: () => spanS(originNs, monoNs()), signal: ctx.signal,
      });
      const alive = await server.checkAlive();
      const a = assessLoad({ golden: ctx.golden, requests, shape: load.shape, slo: load.slo, loadS: server.loadS, limits: load.limits, server: alive });
      writeAtomic(join(ctx.runDir, 'legs', `${name}.requests.jsonl`), requests.map((q) => JSON.stringify(q)).join('\n') + '\n');
      ctx.deps.progress(`[nh-gate] leg ${planned.index + 1} (${planned.label}) ${describeShape(load.shape)}: ${requests.length} request(s), tokens ${a.tokens.matched}/${a.tokens.compared} → ${a.verdict.word}`);
      assessed = { point: servePoint(load.shape, requests, a), tokens: a.tokens, verdict: a.verdict };
    } finally {
      // However the load ends (a harness fault included), the server does not outlive its leg.
      agent.destroy();
      ended = await server.stop();
    }
    // Ctrl-C during the load: the leg is not counted (the series stops after it), as a driver leg would be.
    const process = processOf(ended.run, ctx.originNs, ctx.signal);
    return { ...serveLegRecord({ ...base, process, ...assessed, loadS: server.loadS, why: null }), timeline: null, log: ended.log };
  };
}
