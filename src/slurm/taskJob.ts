import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monoNs, spanS } from '../exec/clock.js';
import { NhGateError } from '../errors.js';
import { writeAtomic } from '../io/atomic.js';
import { reason, type Reason } from '../verdict/reasons.js';
import type { SlurmLegInfo } from '../results/types.js';
import type { SlurmConfig } from './config.js';
import type { SlurmClient } from './client.js';
import { batchScript, sbatchArgv } from './sbatch.js';
import { faultOf, neverStarted, PENDING_STATES, TERMINAL_STATES, type JobState } from './state.js';
import type { NodeTask, NodeTasks, TaskOutcome } from './taskTypes.js';
import { readTaskRecord, taskFiles, TASK_WIRE_SCHEMA_VERSION, type TaskRequestWire } from './taskWire.js';

// Node tasks (busy's command, mutate's suite runs) as one Slurm job each: sbatch with the site's form of
// one exclusive GPU, wait, read the node's record back. Built on the per-leg job code (client, sbatch,
// state); a fault (cancelled, timed out, node lost, never started) comes back as a named Reason, never thrown.
// Tasks are never pinned to a node: mutate's workers run side by side on as many nodes as the site gives.

export interface TaskJobOptions {
  config: SlurmConfig;
  client: SlurmClient;
  progress: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

// The task runner shipped beside the leg runner (dist/slurm/taskRunner.js); with `runner` set in the
// config, the task runner is looked for beside that one on the nodes.
export function taskRunnerPath(c: SlurmConfig): string {
  return c.runner ? join(dirname(c.runner), 'taskRunner.js') : fileURLToPath(new URL('./taskRunner.js', import.meta.url));
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

// The per-task-job executor of one run.
export function slurmTaskJobs(o: TaskJobOptions): NodeTasks {
  const c = o.config;
  const env = o.env ?? process.env;
  let submitted = 0;
  const live = new Set<string>();
  const script = (runDir: string): string => {
    const path = taskFiles(runDir, 'x').script;
    mkdirSync(join(runDir, 'tasks'), { recursive: true });
    writeAtomic(path, batchScript(c.node ?? process.execPath, taskRunnerPath(c)));
    return path;
  };
  const argvFor = (runDir: string, task: Pick<NodeTask, 'name' | 'arm' | 'arch' | 'timeoutS'>): string[] => {
    const f = taskFiles(runDir, task.name);
    return sbatchArgv(c, { jobName: `nh-gate-${task.name}`, arm: task.arm, arch: task.arch, pinnedNode: null, timeoutS: task.timeoutS, outputPath: f.output, scriptPath: script(runDir), requestPath: f.request });
  };

  return {
    async preflight(site, first) {
      await o.client.testOnly(argvFor(site.runDir, { name: 'preflight', arch: site.arch, ...first }));
    },
    async run(task, at): Promise<TaskOutcome> {
      const f = taskFiles(at.runDir, task.name);
      const exported = Object.fromEntries(c.export.flatMap((k) => (env[k] !== undefined ? [[k, env[k]!]] : [])));
      const body = withExported(task, exported);
      const request: TaskRequestWire = {
        schemaVersion: TASK_WIRE_SCHEMA_VERSION, task: { name: task.name, kind: task.kind, arch: task.arch, body }, runDir: at.runDir,
        copyMode: c.copyMode, nodeScratch: c.nodeScratch, originWallMs: Date.now() - spanS(at.originNs, monoNs()) * 1000,
      };
      for (const p of [f.node, f.output]) rmSync(p, { force: true });
      mkdirSync(dirname(f.request), { recursive: true });
      writeAtomic(f.request, JSON.stringify(request, null, 2) + '\n');
      const submittedNs = monoNs();
      const lostAt = (fault: Reason, s: Partial<SlurmLegInfo> = {}): TaskOutcome => ({ record: null, slurm: { jobId: null, node: null, state: null, reason: null, exitCode: null, source: 'sbatch', submitS: spanS(at.originNs, submittedNs), collectS: spanS(at.originNs, monoNs()), ...s }, fault, interrupted: false });
      let jobId: string;
      try {
        jobId = await o.client.submit(argvFor(at.runDir, task));
      } catch (err) {
        // The first refusal stops the run (a config error, exit 2); a later one voids only its task.
        if (submitted === 0 || !(err instanceof NhGateError) || err.code !== 'SLURM_REJECTED') throw err;
        return lostAt(reason('SLURM_REJECTED', err.message));
      }
      submitted += 1;
      live.add(jobId);
      o.progress(`[nh-gate] ${task.kind} ${task.name}: Slurm job ${jobId}`);
      let last: JobState | null = null;
      let fault: Reason | null = null;
      let interrupted = false;
      try {
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
          const fin = (await o.client.final(jobId)) ?? last;
          last = fin;
          // A shared filesystem may show a file another host just wrote only after its lookup cache expires.
          let rec0 = readTaskRecord(f.node);
          for (const t0 = monoNs(); rec0 === null && fin?.state === 'COMPLETED' && spanS(t0, monoNs()) < c.recordWaitS && !at.signal.aborted; rec0 = readTaskRecord(f.node)) await sleep(200, at.signal);
          fault = fin
            ? faultOf(jobId, fin, rec0 !== null, f.output)
            : reason('SLURM_LOST', `job ${jobId} is no longer known to the controller and accounting (sacct) has no record of it; see ${f.output}`);
        }
      } finally {
        live.delete(jobId);
      }
      const rec = readTaskRecord(f.node);
      if (!fault && rec?.fault) fault = rec.fault;
      const slurm: SlurmLegInfo = {
        jobId, node: rec?.node ?? last?.node ?? null, state: interrupted ? 'CANCELLED' : (last?.state ?? null), reason: last?.reason ?? null, exitCode: last?.exitCode ?? null, source: last?.source ?? null,
        submitS: spanS(at.originNs, submittedNs), collectS: spanS(at.originNs, monoNs()),
      };
      o.progress(`[nh-gate] ${task.kind} ${task.name}: slurm: job ${jobId} on ${slurm.node ?? '?'} ${slurm.state ?? '?'}${fault ? ` — ${fault.code}` : ''}`);
      return { record: rec ? { node: rec.node, jobId: rec.jobId, silicon: rec.silicon, originNs: rec.originNs, fault: rec.fault, body: rec.body } : null, slurm, fault, interrupted };
    },
    // Jobs still in flight (a run that threw) are cancelled: nothing of ours is left on the cluster.
    async release() {
      await Promise.all([...live].map((id) => o.client.cancel(id)));
      live.clear();
    },
  };
}

// The task's body with the config's exported variables under its own environment (the task's own win):
// a command's spec.env, a busy command's request.env. --export=NONE keeps everything else out.
function withExported(task: NodeTask, exported: Record<string, string>): unknown {
  if (Object.keys(exported).length === 0) return task.body;
  if (task.kind === 'command') {
    const b = task.body as { spec: { env?: Record<string, string> } };
    return { ...b, spec: { ...b.spec, env: { ...exported, ...(b.spec.env ?? {}) } } };
  }
  if (task.kind === 'busy') {
    const b = task.body as { request: { env?: Record<string, string> } };
    return { ...b, request: { ...b.request, env: { ...exported, ...(b.request.env ?? {}) } } };
  }
  return task.body;
}
