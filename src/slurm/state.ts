import { reason, type Reason } from '../verdict/reasons.js';

// Slurm's answers about one job, parsed (pure), and a finished job's state mapped onto a leg's fault.
// Sources in order of authority: sacct (accounting, when the site runs slurmdbd), then scontrol show job
// (the controller's memory of the job: MinJobAge seconds after it ends), then squeue (live jobs only).

export interface JobState {
  state: string;
  reason: string | null;
  node: string | null;
  exitCode: string | null;
  source: 'sacct' | 'scontrol' | 'squeue' | 'srun';
}

export const TERMINAL_STATES = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE', 'REVOKED', 'SPECIAL_EXIT']);
export const PENDING_STATES = new Set(['PENDING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'RESV_DEL_HOLD', 'CONFIGURING']);

// "CANCELLED by 0" → "CANCELLED"; "n/a", "(null)", "None" and "" → null.
function clean(v: string | undefined): string | null {
  if (v === undefined) return null;
  const t = v.trim();
  return t === '' || t === '(null)' || t === 'None' || t === 'n/a' || t === 'None assigned' ? null : t;
}

// `scontrol show job -o ID`: one line of Key=Value fields.
export function parseScontrol(text: string): JobState | null {
  const fields = new Map<string, string>();
  for (const m of text.matchAll(/(?:^|\s)([A-Za-z][A-Za-z0-9_:/]*)=(\S*)/g)) if (!fields.has(m[1]!)) fields.set(m[1]!, m[2]!);
  const state = clean(fields.get('JobState'));
  if (!state) return null;
  return { state, reason: clean(fields.get('Reason')), node: clean(fields.get('NodeList')) ?? clean(fields.get('BatchHost')), exitCode: clean(fields.get('ExitCode')), source: 'scontrol' };
}

// `squeue -h -j ID -o %T|%r|%N`.
export function parseSqueue(text: string): JobState | null {
  const line = text.split('\n').find((l) => l.trim() !== '');
  if (!line) return null;
  const [state, reason, node] = line.split('|');
  const s = clean(state);
  return s ? { state: s, reason: clean(reason), node: clean(node), exitCode: null, source: 'squeue' } : null;
}

// `sacct -n -P -X -j ID -o State,ExitCode,NodeList,Reason,Submit`: the allocation's line. Accounting keeps
// every job that ever had this id (ids restart after MaxJobId or a lost controller state), so the one
// submitted last is this job (Submit is ISO 8601: the greatest string is the latest).
export function parseSacct(text: string): JobState | null {
  const submit = (l: string): string => l.split('|')[4] ?? '';
  const line = text.split('\n').filter((l) => l.trim() !== '').reduce<string | undefined>((a, l) => (a === undefined || submit(l) > submit(a) ? l : a), undefined);
  if (!line) return null;
  const [state, exitCode, node, reason] = line.split('|');
  const s = clean(state)?.split(/\s+/)[0] ?? null;
  return s ? { state: s, reason: clean(reason), node: clean(node), exitCode: clean(exitCode), source: 'sacct' } : null;
}

// `sacct -n -P -j JOB.STEP -o JobID,State,ExitCode,NodeList`: that step's line (sacct lists the job's others too).
export function parseSacctStep(text: string, stepId: string): JobState | null {
  for (const line of text.split('\n')) {
    const [id, state, exitCode, node] = line.split('|');
    if (id?.trim() !== stepId) continue;
    const s = clean(state)?.split(/\s+/)[0] ?? null;
    if (s) return { state: s, reason: null, node: clean(node), exitCode: clean(exitCode), source: 'sacct' };
  }
  return null;
}

// The step id srun --verbose names when it launches ("launching StepId=70.3 on host n1"); null when absent.
export function stepIdOf(srunText: string): string | null {
  const m = /StepId=(\d+\.\d+)/.exec(srunText);
  return m ? m[1]! : null;
}

// A step that left no record while its allocation lives on: the step's own end, from srun's words.
// (An allocation that ended is the job's fault instead: faultOf.)
export function stepFault(stepId: string, node: string | null, srunExit: number | null, srunText: string, outputPath: string): Reason {
  const where = `step ${stepId}${node ? ` on ${node}` : ''}`;
  const again = 'the finished legs are kept; --resume RUN_DIR submits only the missing legs';
  const last = srunText.trim().split('\n').filter((l) => /error|CANCELLED|TIME LIMIT/i.test(l)).slice(-2).join(' | ');
  if (/DUE TO TIME LIMIT/.test(srunText)) return reason('SLURM_TIMEOUT', `${where} ran past its --time (${last}); raise the leg timeout (--timeout) or timeMarginS in the Slurm config; ${again}`);
  if (/CANCELLED/.test(srunText)) return reason('SLURM_CANCELLED', `${where} was cancelled (scancel of the step or an administrator: ${last}); ${again}`);
  if (srunExit === RUNNER_RUN_DIR_EXIT || /RUN_DIR_UNREACHABLE/.test(srunText)) return reason('RUN_DIR_UNREACHABLE', `${where}: the runner could not use the run directory from the node — put --results-dir on a filesystem the nodes mount at the same path (see ${outputPath}); ${again}`);
  return reason('SLURM_FAILED', `${where} ended with srun exit ${srunExit ?? 'none'} and no record${last ? ` (${last})` : ''}; see ${outputPath}; ${again}`);
}

// The exit status the leg runner uses when the run directory cannot be read or written from the node.
export const RUNNER_RUN_DIR_EXIT = 78;
// The lease holder's exit when the node's GPU lock is held by someone else (EX_TEMPFAIL).
export const HOLDER_LOCKED_EXIT = 75;

// A finished job as a leg fault: null when the job did its part (COMPLETED with the runner's record);
// otherwise a reason that starts with its stable code, names the job, node, state and Slurm's reason, and the fix.
export function faultOf(jobId: string, s: JobState, runnerRecord: boolean, outputPath: string): Reason | null {
  const where = `job ${jobId}${s.node ? ` on ${s.node}` : ''} ended ${s.state}${s.reason ? ` (reason ${s.reason})` : ''}${s.exitCode ? `, exit ${s.exitCode}` : ''} [${s.source}]`;
  const again = 'the finished legs are kept; --resume RUN_DIR submits only the missing legs';
  const exitMain = s.exitCode ? Number(s.exitCode.split(':')[0]) : null;
  switch (s.state) {
    case 'COMPLETED':
      return runnerRecord ? null : reason('SLURM_LOST', `${where}, but the leg runner left no record — see ${outputPath}`);
    case 'CANCELLED':
      return reason('SLURM_CANCELLED', `${where}: the job was cancelled (scancel or an administrator); ${again}`);
    case 'TIMEOUT':
      return reason('SLURM_TIMEOUT', `${where}: the job ran past its --time; raise the leg timeout (--timeout) or timeMarginS in the Slurm config; ${again}`);
    case 'NODE_FAIL':
      return reason('SLURM_NODE_LOST', `${where}: the node was lost while the leg ran; ${again}`);
    case 'PREEMPTED':
      return reason('SLURM_PREEMPTED', `${where}: a higher-priority job took the node; use a partition or QOS without preemption; ${again}`);
    case 'OUT_OF_MEMORY':
      return reason('SLURM_OUT_OF_MEMORY', `${where}: the job hit its memory limit; ask for more with extraArgs ["--mem=…"]; ${again}`);
    case 'FAILED':
      if (exitMain === HOLDER_LOCKED_EXIT) return reason('NODE_LOCKED', `${where}: the node's GPU lock is held by another nh-gate (see ${outputPath}), so the allocation ended before any leg ran; wait for it, or let Slurm place the series elsewhere (pin, constraints); ${again}`);
      if (exitMain === RUNNER_RUN_DIR_EXIT) return reason('RUN_DIR_UNREACHABLE', `${where}: the leg runner could not use the run directory from the node — put --results-dir on a filesystem the nodes mount at the same path (see ${outputPath}); ${again}`);
      if (s.reason === 'JobLaunchFailure') return reason('SLURM_LAUNCH_FAILED', `${where}: Slurm could not start the job, most often because its output file ${outputPath} is not writable from the node — put --results-dir on a filesystem the nodes mount at the same path; ${again}`);
      return runnerRecord ? null : reason('SLURM_FAILED', `${where}: see ${outputPath}; ${again}`);
    default:
      return reason('SLURM_FAILED', `${where} (Slurm state ${s.state}); ${again}`);
  }
}

// A job still pending past the start timeout: cancelled by nh-gate, with the reason Slurm gave for waiting.
export function neverStarted(jobId: string, s: JobState | null, waitedS: number): Reason {
  return reason('NEVER_STARTED', `job ${jobId} was still ${s?.state ?? 'unknown to Slurm'}${s?.reason ? ` (reason ${s.reason})` : ''} after ${waitedS.toFixed(0)} s and was cancelled; free or add nodes of that kind, fix the partition or constraint, or raise startTimeoutS; the finished legs are kept; --resume RUN_DIR submits only the missing legs`);
}
