// Anytime-valid confidence sequences for the sequential A/B (docs/statistics.md states the method).
//
// Observations are per-block log ratios x_1, x_2, … with unknown mean θ. If they are independent and
// σ-sub-Gaussian around θ (true for a normal with standard deviation ≤ σ), the normal-mixture
// martingale of Robbins (1970), in the form of Howard, Ramdas, McAuliffe & Sekhon (2021, Ann. Stat.,
// "Time-uniform, nonparametric, nonasymptotic confidence sequences", §3.3),
//     M_n(θ) = (1 + nρ)^(-1/2) · exp( ρ S_n(θ)² / (2σ²(1 + nρ)) ),   S_n(θ) = Σ (x_i − θ),   ρ = τ²/σ²,
// is a nonnegative supermartingale under θ, so by Ville's inequality P(∃n: M_n(θ) ≥ 1/α) ≤ α.
// The set {θ : M_n(θ) < 1/α} is therefore a confidence sequence: it covers θ at every n at once,
// with probability ≥ 1 − α, whatever rule decides when to look or stop.

export interface MixtureParams {
  alpha: number; // total miscoverage over all n (both sides together)
  sigma: number; // the registered sub-Gaussian scale of one observation (log-ratio units)
  tau: number; // the standard deviation of the normal mixture over effects (log-ratio units)
}

// Half-width of the confidence sequence around the running mean after n observations.
export function mixtureHalfWidth(n: number, p: MixtureParams): number {
  if (!(n >= 1)) return Number.POSITIVE_INFINITY;
  const rho = (p.tau * p.tau) / (p.sigma * p.sigma);
  const s2 = ((2 * p.sigma * p.sigma * (1 + n * rho)) / rho) * (Math.log(1 / p.alpha) + 0.5 * Math.log(1 + n * rho));
  return Math.sqrt(s2) / n;
}

// The mixture martingale itself at θ: the e-value a test of "mean = θ" has accumulated after n observations.
export function mixtureEValue(xs: readonly number[], theta: number, p: MixtureParams): number {
  const n = xs.length;
  if (n === 0) return 1;
  const rho = (p.tau * p.tau) / (p.sigma * p.sigma);
  let s = 0;
  for (const x of xs) s += x - theta;
  return Math.pow(1 + n * rho, -0.5) * Math.exp((rho * s * s) / (2 * p.sigma * p.sigma * (1 + n * rho)));
}

export interface SequenceInterval {
  n: number;
  mean: number;
  lo: number;
  hi: number;
}

// The confidence sequence after each observation (running intersection: a CS stays valid when intersected).
export function confidenceSequence(xs: readonly number[], p: MixtureParams): SequenceInterval[] {
  const out: SequenceInterval[] = [];
  let sum = 0;
  let lo = Number.NEGATIVE_INFINITY;
  let hi = Number.POSITIVE_INFINITY;
  for (let i = 0; i < xs.length; i++) {
    sum += xs[i]!;
    const n = i + 1;
    const mean = sum / n;
    const hw = mixtureHalfWidth(n, p);
    lo = Math.max(lo, mean - hw);
    hi = Math.min(hi, mean + hw);
    out.push({ n, mean, lo, hi });
  }
  return out;
}
