// Pure readers of a configure/build log: progress, compile errors, disk-full hits and "nothing to do".

// ninja's "[n/m] …" progress line, as numbers.
export function ninjaProgress(line: string): { done: number; total: number } | null {
  const m = /^\[(\d+)\/(\d+)\]/.exec(line);
  return m ? { done: Number(m[1]), total: Number(m[2]) } : null;
}

// gcc/clang "file:12:3: error:", nvcc "file.cu(12): error:", "fatal error:", ld's "collect2: error:".
const COMPILE_ERROR = /(?:^|:|\))\s*(?:fatal\s+)?error(?:\s+#[\w-]+)?:\s/i;
const ENOSPC = /No space left on device|\bENOSPC\b/;
const NO_WORK = /^ninja: no work to do\.?$/;

export interface BuildLogFacts {
  compileErrors: number;
  enospcHits: number;
  // ninja said so: the second build of an unchanged tree rebuilt nothing.
  noWork: boolean;
  // Steps ninja ran (the largest m of its [n/m] lines), 0 when it ran none.
  stepsRun: number;
  failedTargets: string[];
}

// Counts what a build log says happened; a line is judged by its text, never by its position.
export function readBuildLog(lines: readonly string[]): BuildLogFacts {
  let compileErrors = 0;
  let enospcHits = 0;
  let noWork = false;
  let stepsRun = 0;
  const failedTargets: string[] = [];
  for (const line of lines) {
    if (COMPILE_ERROR.test(line)) compileErrors += 1;
    if (ENOSPC.test(line)) enospcHits += 1;
    if (NO_WORK.test(line.trim())) noWork = true;
    const p = ninjaProgress(line);
    if (p && p.done > stepsRun) stepsRun = p.done;
    const f = /^FAILED: (.+)$/.exec(line);
    if (f?.[1]) failedTargets.push(f[1].trim());
  }
  return { compileErrors, enospcHits, noWork, stepsRun, failedTargets };
}

// The compiler's first error line (gcc/clang/nvcc/ld), trimmed, or null when the log has none: the one
// line that says why a mutant was UNVIABLE.
export function firstCompileError(lines: readonly string[]): string | null {
  const hit = lines.find((l) => COMPILE_ERROR.test(l));
  return hit === undefined ? null : hit.trim().slice(0, 400);
}

// Build progress on stderr. On a terminal: one status line rewritten in place. Elsewhere (a CI log, a pipe):
// a plain line each time ninja passes another twentieth of its steps and at its last, naming the step, so a
// 35-minute build shows it is alive without copying its whole log (that is kept in the run's build.log).
export function progressWriter(isTty: boolean, write: (s: string) => void): { line(l: string): void; end(): void } {
  let shown = false;
  let lastTwentieth = -1;
  return {
    line(l: string) {
      const p = ninjaProgress(l);
      if (!p) return;
      if (isTty) {
        write(`\r[nh-gate build] ${p.done}/${p.total}`);
        shown = true;
        return;
      }
      const twentieth = Math.floor((20 * p.done) / Math.max(1, p.total));
      if (twentieth === lastTwentieth && p.done !== p.total) return;
      lastTwentieth = twentieth;
      write(`[nh-gate build] ${p.done}/${p.total} ${l.replace(/^\[\d+\/\d+\]\s*/, '').slice(0, 160)}\n`);
    },
    end() {
      if (isTty && shown) write('\n');
    },
  };
}
