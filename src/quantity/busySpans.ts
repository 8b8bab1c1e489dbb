// How driver utilization samples become busy seconds inside a window (issues #5, #23), pure.
//
// A driver sample stamped t with period p says a kernel ran v% of (t − p, t]. A period the window cuts holds
// that period's busy time, but not in proportion to the part inside: a load that starts with the window was
// idle in the part before it. Spreading the period uniformly (overlap weighting) reads such a window low by
// up to duty × p / 4 per edge — on an H200 (p = 0.2 s) an 80% load over a 6 s window read 0.5–2 points low.
// So the part outside the window is charged at the level of the sample next to it on that side (where the
// GPU was), clamped to what the period can hold, and the rest of the period's busy time is inside. Exact when
// the level holds up to the edge, and when it steps at the edge; without a neighbour, uniform as before.

// One driver reading over the period it describes, (startS, endS], at its level in percent.
export interface Span {
  startS: number;
  endS: number;
  pct: number;
}

// 'driver': NVIDIA's readings are whole percents, truncated (on an H200, every reading of a steady load sat
// 0 to 1.2 points below the CUDA-event truth, never above), so a whole reading k of 1–99 counts as its bin's
// midpoint k + 0.5; 0 stays 0 (an idle GPU reads 0) and 100 stays 100. 'exact': readings are taken as given.
export type Readings = 'driver' | 'exact';

export function readingLevel(pct: number, readings: Readings): number {
  return readings === 'driver' && Number.isInteger(pct) && pct >= 1 && pct <= 99 ? pct + 0.5 : pct;
}

// Two spans are neighbours when one starts where the other ends (driver periods chain exactly; 1 ms is float slack).
const ADJACENT_S = 1e-3;

// Periods from sorted samples: each sample covers back to its own stated period, never before the previous
// sample (periods never double-count), else back to the previous sample, else the nominal period; a first
// sample with neither has no known period and no span.
export function spansOf(sorted: ReadonlyArray<{ tS: number; pct: number; periodS?: number | undefined }>, nominalPeriodS?: number): Span[] {
  const out: Span[] = [];
  let prevT: number | null = null;
  for (const s of sorted) {
    const own = s.periodS !== undefined && Number.isFinite(s.periodS) && s.periodS > 0 ? s.tS - s.periodS : null;
    const fallback = prevT ?? (nominalPeriodS ? s.tS - nominalPeriodS : null);
    const startS = own === null ? fallback : Math.max(own, prevT ?? own);
    prevT = s.tS;
    if (startS !== null && s.tS > startS) out.push({ startS, endS: s.tS, pct: s.pct });
  }
  return out;
}

// How a period the window cuts was split: by the neighbouring sample's level, or uniformly (no neighbour sampled).
export type EdgeSplit = 'neighbour' | 'uniform';

export interface WindowBusy {
  // Busy percent-seconds inside the window, and the seconds of the window the spans cover.
  busyPctS: number;
  coveredS: number;
  // Spans that overlap the window, and their lengths (for the median period).
  spans: number;
  periodsS: number[];
  // How the spans cut by the window's start and end were split; null when no span crosses that edge.
  startEdge: EdgeSplit | null;
  endEdge: EdgeSplit | null;
}

// The busy time inside [startS, endS] from non-overlapping spans sorted by time.
export function busyInWindow(spans: readonly Span[], startS: number, endS: number): WindowBusy {
  const r: WindowBusy = { busyPctS: 0, coveredS: 0, spans: 0, periodsS: [], startEdge: null, endEdge: null };
  spans.forEach((sp, i) => {
    const overlapS = Math.min(sp.endS, endS) - Math.max(sp.startS, startS);
    if (!(overlapS > 0)) return;
    const beforeS = Math.max(0, startS - sp.startS);
    const afterS = Math.max(0, sp.endS - endS);
    const prev = spans[i - 1];
    const next = spans[i + 1];
    const prevLevel = prev && sp.startS - prev.endS <= ADJACENT_S ? prev.pct : null;
    const nextLevel = next && next.startS - sp.endS <= ADJACENT_S ? next.pct : null;
    if (beforeS > 0) r.startEdge = prevLevel === null ? 'uniform' : 'neighbour';
    if (afterS > 0) r.endEdge = nextLevel === null ? 'uniform' : 'neighbour';
    const totalPctS = sp.pct * (sp.endS - sp.startS);
    const chargedPctS = beforeS * (prevLevel ?? sp.pct) + afterS * (nextLevel ?? sp.pct);
    // The inside holds at most its own length and the period's busy time, at least nothing (a neighbour busier
    // than the period). Levels are at most 100, so the outside is never charged more than it can hold.
    r.busyPctS += Math.min(100 * overlapS, totalPctS, Math.max(0, totalPctS - chargedPctS));
    r.coveredS += overlapS;
    r.spans += 1;
    r.periodsS.push(sp.endS - sp.startS);
  });
  return r;
}

// The samples nh-gate writes (NVML addon or nvidia-smi) hold the NVIDIA driver's own readings; a file from
// elsewhere ('file', or no header) is taken as given.
export function readingsOfSource(source: string | null | undefined): Readings {
  return source === 'nvml' || source === 'nvidia-smi' ? 'driver' : 'exact';
}
