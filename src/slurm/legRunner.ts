import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { monoNs, spanS } from '../exec/clock.js';
import { NhGateError } from '../errors.js';
import { writeAtomic } from '../io/atomic.js';
import { reason, type Reason } from '../verdict/reasons.js';
import type { SlurmLegInfo } from '../results/types.js';
import type { LegRunner, LegRunOutcome } from '../gates/legRunner.js';
import { legFiles, type LegObserved, type LegRequest } from '../gates/observe.js';
import type { SlurmConfig } from './config.js';
import type { SlurmClient } from './client.js';
import { batchScript, legJobFiles, sbatchArgv } from './sbatch.js';
import { faultOf, neverStarted, PENDING_STATES, TERMINAL_STATES, type JobState } from './state.js';
import { readNodeRecord, WIRE_SCHEMA_VERSION, type SlurmLegRequest } from './wire.js';

// --executor slurm: each leg is one job (sbatch, one exclusive GPU); nh-gate waits for it, reads the
// runner's record from the run directory and hands the series the same observation a local leg gives.
// Faults (cancelled, timed out, node lost, never started) come back as the leg's named VOID, never thrown.

export interface SlurmRunnerOptions {
  config: SlurmConfig;
  client: SlurmClient;
  progress: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

// The runner shipped in this package: dist/slurm/runner.js beside this file.
export function defaultRunnerPath(): string {
  return fileURLToPath(new URL('./runner.js', import.meta.url));
}

function emptyRun(argv: string[]): LegObserved['run'] {
  const t = monoNs();
  return { argv, pid: null, startNs: t, endNs: t, exitCode: null, signal: null, timedOut: false, interrupted: false, spawnError: null, orphansKilled: false, lines: [] };
}

// What a leg whose job never ran (or left no record) observed: nothing.
function lostObservation(req: LegRequest): LegObserved {
  return {
    run: emptyRun([]), binarySha256: null, foreignPids: [], contentionChecked: false, samplerBackend: null, samplerNote: null,
    util: [], gpm: [], clocks: [], gpmStatus: null, nominalPeriodS: null, sampled: false, files: { ...legFiles(req), events: null, samples: null },
    samplerEnd: null, log: { bytes: 0, droppedBytes: 0, fault: null, error: null }, tree: { pids: [], cpuS: null, cpuNote: null },
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

// The Slurm executor of one series (it remembers the node the series is pinned to).
export function slurmLegRunner(o: SlurmRunnerOptions): LegRunner {
  const c = o.config;
  const env = o.env ?? process.env;
  let pinnedNode: string | null = null;
  let submitted = 0;
  const script = (runDir: string): string => {
    const path = legJobFiles(runDir, 'x').script;
    writeAtomic(path, batchScript(c.node ?? process.execPath, c.runner ?? defaultRunnerPath()));
    return path;
  };
  const argvFor = (runDir: string, arch: string, name: string, req: Pick<LegRequest, 'arm' | 'timeoutS'>): string[] => {
    const f = legJobFiles(runDir, name);
    return sbatchArgv(c, { jobName: `nh-gate-${name}`, arm: req.arm, arch, pinnedNode, timeoutS: req.timeoutS, outputPath: f.output, scriptPath: script(runDir), requestPath: f.request });
  };

  return {
    kind: 'slurm',
    // sbatch --test-only: a missing sbatch or a partition the cluster lacks is a named error before any build.
    async preflight(site, first) {
      await o.client.testOnly(argvFor(site.runDir, site.arch, 'preflight', first));
    },
    async run(req, at): Promise<LegRunOutcome> {
      const f = legJobFiles(at.runDir, req.name);
      const exported = Object.fromEntries(c.export.flatMap((k) => (env[k] !== undefined ? [[k, env[k]!]] : [])));
      const request: SlurmLegRequest = {
        schemaVersion: WIRE_SCHEMA_VERSION, leg: { ...req, env: { ...exported, ...req.env } }, runDir: at.runDir,
        copyMode: c.copyMode, nodeScratch: c.nodeScratch, arch: at.arch, originWallMs: Date.now() - spanS(at.originNs, monoNs()) * 1000,
      };
      for (const p of [f.node, f.output]) rmSync(p, { force: true });
      writeAtomic(f.request, JSON.stringify(request, null, 2) + '\n');
      let jobId: string;
      const submittedNs = monoNs();
      try {
        jobId = await o.client.submit(argvFor(at.runDir, at.arch, req.name, req));
      } catch (err) {
        // The first refusal stops the series (a config error, exit 2); a later one voids only its leg.
        if (submitted === 0 || !(err instanceof NhGateError) || err.code !== 'SLURM_REJECTED') throw err;
        return { observed: lostObservation(req), silicon: null, originNs: null, slurm: { jobId: null, node: null, state: null, reason: null, exitCode: null, source: 'sbatch' }, fault: reason('SLURM_REJECTED', `${err.message}; the finished legs are kept; --resume RUN_DIR submits only the missing legs`) };
      }
      submitted += 1;
      o.progress(`[nh-gate] leg ${req.index + 1}: ${req.label}: Slurm job ${jobId}`);
      let last: JobState | null = null;
      let fault: Reason | null = null;
      let interrupted = false;
      for (;;) {
        if (at.signal.aborted) {
          await o.client.cancel(jobId);
          interrupted = true;
          break;
        }
        const s = await o.client.live(jobId);
        if (s === null) break;
        last = s;
        if (TERMINAL_STATES.has(s.state)) break;
        if (PENDING_STATES.has(s.state) && spanS(submittedNs, monoNs()) > c.startTimeoutS) {
          await o.client.cancel(jobId);
          fault = neverStarted(jobId, s, spanS(submittedNs, monoNs()));
          break;
        }
        await sleep(c.pollS * 1000, at.signal);
      }
      if (!fault && !interrupted) {
        // The most authoritative source for how the job ended (sacct, else scontrol, else what we last saw).
        const fin = (await o.client.final(jobId)) ?? last;
        last = fin;
        // A shared filesystem may show a file another host just wrote only after its lookup cache expires.
        let rec0 = readNodeRecord(f.node);
        for (const t0 = monoNs(); rec0 === null && fin?.state === 'COMPLETED' && spanS(t0, monoNs()) < c.recordWaitS && !at.signal.aborted; rec0 = readNodeRecord(f.node)) {
          await sleep(200, at.signal);
        }
        fault = fin
          ? faultOf(jobId, fin, rec0 !== null, f.output)
          : reason('SLURM_LOST', `job ${jobId} is no longer known to the controller and accounting (sacct) has no record of it; see ${f.output}; the finished legs are kept; --resume RUN_DIR submits only the missing legs`);
      }
      const rec = readNodeRecord(f.node);
      if (!fault && rec?.fault) fault = rec.fault;
      const node = rec?.node ?? last?.node ?? null;
      if (c.pin === 'series' && !fault && !interrupted && node && pinnedNode === null) pinnedNode = node;
      const slurm: SlurmLegInfo = {
        jobId, node, state: interrupted ? 'CANCELLED' : (last?.state ?? null), reason: last?.reason ?? null, exitCode: last?.exitCode ?? null, source: last?.source ?? null,
        submitS: spanS(at.originNs, submittedNs), collectS: spanS(at.originNs, monoNs()),
      };
      const observed: LegObserved = rec?.observed ?? lostObservation(req);
      // A job ended by Slurm is that leg's fault, not a Ctrl-C of the series; ours is the series' interrupt.
      observed.run = { ...observed.run, interrupted };
      // A job that never ran left no log: the header alone says which leg this was.
      if (!existsSync(`${at.runDir}/${observed.files.log}`)) writeAtomic(`${at.runDir}/${observed.files.log}`, req.logHeader + '\n');
      return { observed, silicon: rec?.silicon ?? null, originNs: rec && rec.observed ? rec.originNs : null, slurm, fault };
    },
  };
}
