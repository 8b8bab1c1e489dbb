// What the executor spawns: an argv array (never a shell string), its environment and its limits.
export interface ProcessSpec {
  argv: string[];
  cwd?: string;
  // Added to the harness's environment (flags, engine env); values here win.
  env?: Record<string, string>;
  // Removed from the environment the process sees, even when the harness's own environment has them.
  unset?: string[];
  // Per-leg limit; past it the whole process group is killed.
  timeoutS?: number;
  // Grace between SIGTERM and SIGKILL when killing the tree.
  killGraceMs?: number;
  // Keep only the last N lines in ProcessRun.lines (a ring); the caller streams the rest through onLine.
  // Unset: every line is kept (builds, suites). Live legs set it, so memory stays flat on any output size.
  retainLines?: number;
}

// One line of driver output, stamped by the harness when it arrived (monotonic ns).
export interface TimedLine {
  tNs: bigint;
  stream: 'stdout' | 'stderr';
  text: string;
  // `\r` overwrites before the text a terminal would show (progress bars); absent when none.
  crOverwrites?: number;
  // Characters dropped past the line cap (a line with no newline for 100 MB); absent when none.
  truncatedChars?: number;
}

// A finished (or failed) process as data: never an exception for a driver that misbehaved.
export interface ProcessRun {
  argv: string[];
  pid: number | null;
  startNs: bigint;
  endNs: bigint;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  interrupted: boolean;
  // Set when the process could not be started at all (e.g. ENOENT), with the reason.
  spawnError: string | null;
  // Processes of the leg's group still alive after the leader exited, killed by the harness.
  orphansKilled: boolean;
  lines: TimedLine[];
  // Lines seen in all (lines may hold only the last retainLines of them).
  lineCount?: number;
  // What containment ended besides the leader (its group's leftovers and what escaped the group), whether the
  // output pipes were still held open by something it could not find, and which mechanisms held. Absent: nothing.
  contained?: { killed: Array<{ pid: number; comm: string | null; how: string; signal: string; survived?: boolean }>; pipesHeld: boolean; mechanisms: string };
}

// Hooks a caller may attach while a process runs.
export interface RunHooks {
  onLine?: (line: TimedLine) => void;
  // The leader's pid (= its process group) once spawned: the series records it in the GPU lock and tracks the leg's tree.
  onSpawn?: (pid: number) => void;
  // Aborting it (Ctrl-C) kills the process tree and marks the run interrupted.
  signal?: AbortSignal;
}

// The seam between gates and processes: the real one spawns, tests may pass a deterministic one.
export interface Executor {
  run(spec: ProcessSpec, hooks?: RunHooks): Promise<ProcessRun>;
}

// True when the run ended the way a healthy driver ends (exit 0, no signal, no timeout).
export function exitedCleanly(run: ProcessRun): boolean {
  return run.exitCode === 0 && run.signal === null && !run.timedOut && !run.interrupted && run.spawnError === null;
}

// The last n lines of a run, for surfacing a crash without the whole log.
// Each is cut at LAST_LINE_CHARS: a hostile megabyte line must not land in result.json and the summary.
export function lastLines(run: ProcessRun, n = 12): string[] {
  return run.lines.slice(-n).map((l) => {
    const text = l.text.length > LAST_LINE_CHARS ? `${l.text.slice(0, LAST_LINE_CHARS)}… (${l.text.length - LAST_LINE_CHARS + (l.truncatedChars ?? 0)} more characters)` : l.text;
    return l.stream === 'stderr' ? `[stderr] ${text}` : text;
  });
}

// How much of one line lastLines keeps.
export const LAST_LINE_CHARS = 1000;

// How a run ended, in words, for summaries and junit failure messages.
export function describeEnd(run: ProcessRun): string {
  if (run.spawnError) return `could not start: ${run.spawnError}`;
  if (run.timedOut) return `timed out; process tree killed${run.signal ? ` (${run.signal})` : ''}`;
  if (run.interrupted) return 'interrupted (Ctrl-C); process tree killed';
  if (run.signal) return `killed by ${run.signal}`;
  return `exit ${run.exitCode}`;
}
