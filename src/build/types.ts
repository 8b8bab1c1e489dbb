
// One command of a build (probe, configure, build) as data.
export interface StepRecord {
  name: string;
  argv: string[];
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationS: number;
  end: string;
  lastLines: string[];
  // The full output, for the run directory's build log.
  log: string[];
}

export interface ProbeRecord extends StepRecord {
  expect: string | null;
  matched: boolean;
  ok: boolean;
}

// A feature cell as the configure printed it.
export interface CellState {
  name: string;
  enabled: boolean;
  detail: string;
}

export interface OutputRecord {
  path: string;
  sha256: string | null;
}

// Everything a build did and what it means: BUILT, FAILED (compiler said no) or VOID (nothing to judge on).
export interface BuildRecord {
  recipe: string;
  arch: string;
  sourceDir: string;
  buildDir: string;
  jobs: number;
  probes: ProbeRecord[];
  configure: StepRecord | null;
  build: StepRecord | null;
  cells: CellState[];
  requiredCells: string[];
  missingCells: string[];
  compileErrors: number;
  enospcHits: number;
  noWork: boolean;
  stepsRun: number;
  outputs: OutputRecord[];
  verdict: 'BUILT' | 'FAILED' | 'VOID';
  // A failed step's error lines, and the recipe prerequisite its output names (then the fix is an install).
  cause: string[];
  prerequisite: { name: string; fix: string } | null;
  voidReason: 'PROBE_FAILED' | 'DEGRADED_BUILD' | null;
  message: string;
}
