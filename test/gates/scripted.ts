import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { monoNs } from '../../src/exec/clock.js';
import { sha256File } from '../../src/io/hash.js';
import { arrivalS, formatTimedLine } from '../../src/profiles/timed.js';
import { legTrailerLine } from '../../src/results/legLog.js';
import { legFiles, type LegObserved, type LegRequest } from '../../src/gates/leg/observe.js';
import type { LegRunner } from '../../src/gates/leg/legRunner.js';
import type { GateDeps } from '../../src/gates/deps.js';
import { realDeps } from '../../src/gates/deps.js';
import { fakeRepo, H200, type FakeRepo } from './fake.js';
import type { Reason } from '../../src/verdict/reasons.js';

// A deterministic executor for the one scheduler: each leg's log, events and busy samples are written from a
// script (per-token seconds and busy % per leg), with stamps the script decides, so a series of any A/B form
// runs through the real series, leg judge and A/B judge with figures no CPU load can move. The tokens are
// the golden's own (the harness sees them in the events file: a harness-witnessed pass).

export interface ScriptedLeg {
  perTokenS: number;
  busyPct?: number;
  // Print wrong ids for prompt 1 (the leg is DIVERGENCE).
  wrongTokens?: boolean;
  // The executor lost the leg (a Slurm job cancelled …): its named VOID, which --resume runs again.
  fault?: Reason;
}
export type Script = (req: LegRequest) => ScriptedLeg;

const GOLDEN: Record<number, number[]> = { 0: [10, 11, 12, 13], 1: [20, 21, 22, 23] };
const s2ns = (s: number): bigint => BigInt(Math.round(s * 1e9));

// The leg's engine events and log lines for a decode window of 8 tokens × perTokenS after a load line.
function writeLeg(runDir: string, req: LegRequest, leg: ScriptedLeg): { startNs: bigint; endNs: bigint; loadNs: bigint } {
  const files = legFiles(req);
  mkdirSync(join(runDir, 'legs'), { recursive: true });
  const startNs = monoNs();
  const loadNs = startNs + 50_000_000n;
  const stepNs = s2ns(leg.perTokenS);
  const events: string[] = [JSON.stringify({ event: 'load_end', tNs: String(loadNs), loadS: 0.05 })];
  const lines: string[] = [req.logHeader, formatTimedLine(arrivalS(loadNs), '[nh-ref] engine loaded in 0.05 s')];
  let t = loadNs;
  for (const p of [0, 1]) {
    events.push(JSON.stringify({ event: 'prompt_start', tNs: String(t), prompt: p, promptTokens: p === 0 ? 3 : 2, mode: 'decode' }));
    GOLDEN[p]!.forEach((tok, i) => {
      t += stepNs;
      events.push(JSON.stringify({ event: 'token', tNs: String(t), prompt: p, index: i, token: leg.wrongTokens && p === 1 && i === 3 ? 99 : tok, mode: 'decode' }));
    });
    events.push(JSON.stringify({ event: 'prompt_done', tNs: String(t), prompt: p, generated: 4, mode: 'decode' }));
    const matched = leg.wrongTokens && p === 1 ? 3 : 4;
    lines.push(formatTimedLine(arrivalS(t), `[nh-ref] prompt ${p}: prompt_tokens=${p === 0 ? 3 : 2} generated=4 golden_width=4 compared=4 matched=${matched} wall=0.01s`));
  }
  const ok = !leg.wrongTokens;
  lines.push(formatTimedLine(arrivalS(t), `[nh-ref] TOKEN MATCH: ${ok ? 8 : 7}/8 over 2 prompt(s) (full rows=2, short rows=0, mode=decode)`));
  lines.push(formatTimedLine(arrivalS(t), ok ? '[nh-ref] STRICT PASS' : '[nh-ref] DIVERGENCE'));
  events.push(JSON.stringify({ event: 'done', tNs: String(t), exitCode: ok ? 0 : 1 }));
  const endNs = t + 10_000_000n;
  lines.push(legTrailerLine({ exitCode: ok ? 0 : 1, signal: null, timedOut: false, interrupted: false, spawnError: null, foreignPids: [] }));
  writeFileSync(join(runDir, files.log), lines.join('\n') + '\n');
  if (files.events) writeFileSync(join(runDir, files.events), events.join('\n') + '\n');
  return { startNs, endNs, loadNs };
}

// The executor: legs written from the script, never a process spawned.
export function scriptedRunner(script: Script, seen: LegRequest[] = []): LegRunner {
  return {
    kind: 'local',
    async run(req, site) {
      seen.push(req);
      const leg = script(req);
      const { startNs, endNs, loadNs } = writeLeg(site.runDir, req, leg);
      const files = legFiles(req);
      // Busy samples every 5 ms from before the load line to after the last token, all at the script's level.
      const util = leg.busyPct === undefined || !req.sampleGpu ? [] : Array.from({ length: Math.ceil(Number(endNs - loadNs) / 5e6) + 4 }, (_, i) => ({ tS: arrivalS(loadNs) - 0.01 + 0.005 * i, gpuPct: leg.busyPct!, periodS: 0.005 }));
      const observed: LegObserved = {
        run: { argv: ['scripted'], pid: null, startNs, endNs, exitCode: leg.wrongTokens ? 1 : 0, signal: null, timedOut: false, interrupted: false, spawnError: null, orphansKilled: false, lines: [] },
        binarySha256: await sha256File(req.binaryPath), foreignPids: [], contentionChecked: true, samplerBackend: util.length ? 'nvml' : null, samplerNote: null,
        util, gpm: [], clocks: [], gpmStatus: null, nominalPeriodS: util.length ? 0.005 : null, samplerEnd: null,
        log: { bytes: 1, droppedBytes: 0, fault: null, error: null }, tree: { pids: [], cpuS: null, cpuNote: null },
        sampled: util.length > 0, files: { ...files, samples: null },
      };
      return { observed, silicon: null, originNs: null, slurm: null, fault: leg.fault ?? null };
    },
  };
}

// The effects of a scripted series: real builds ('true') and lock, the legs from the script; a GPU host when asked.
export async function scriptedDeps(script: Script, opts: { gpu?: boolean; seen?: LegRequest[] } = {}): Promise<GateDeps> {
  const real = await realDeps();
  return { ...real, ...(opts.gpu ? { detectSilicon: async () => H200 } : {}), legRunner: scriptedRunner(script, opts.seen) };
}

// The fake repo with an events file (the harness sees every id) and a flag whose default is on.
export function scriptedRepo(): FakeRepo {
  const repo = fakeRepo({});
  const recipe = JSON.parse(readFileSync(repo.recipePath, 'utf8'));
  recipe.driver.eventsArgv = ['--events', '{events}'];
  recipe.flags.FLAG = { env: 'FAKE_FLAG', on: '1', off: '0', default: 'on' };
  writeFileSync(repo.recipePath, JSON.stringify(recipe, null, 2));
  return repo;
}

// The repo as two commits (the driver differs, so the two binaries do), for the cross-commit form.
export async function scriptedGitRepo(): Promise<FakeRepo & { base: string; head: string }> {
  const repo = scriptedRepo();
  const git = (...a: string[]) => execa('git', ['-C', repo.root, '-c', 'user.name=t', '-c', 'user.email=t@t', ...a]);
  writeFileSync(join(repo.root, '.gitignore'), '.nh-gate/\nresults/\n');
  await git('init', '-q');
  await git('add', '-A');
  await git('commit', '-qm', 'base');
  const base = (await git('rev-parse', 'HEAD')).stdout.trim();
  writeFileSync(join(repo.root, 'driver.sh'), readFileSync(join(repo.root, 'driver.sh'), 'utf8') + '# head\n', { mode: 0o755 });
  await git('commit', '-qam', 'head');
  const head = (await git('rev-parse', 'HEAD')).stdout.trim();
  return { ...repo, base, head };
}
